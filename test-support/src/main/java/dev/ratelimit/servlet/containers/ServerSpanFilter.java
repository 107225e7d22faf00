package dev.ratelimit.servlet.containers;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What the OpenTelemetry Java agent does around a webapp, done by a real SDK in a filter mapped
 * before the limiter (the filter's, or the JAX-RS servlet the resources run in): a server span per
 * request, current on the request's thread while the rest of the chain runs, exported when it ends
 * to an in-memory exporter the test reads. The request's {@value #REQUEST_ID} header is on the span,
 * so a test finds its own ({@link #spanOfRequest}).
 *
 * <p>The SDK is an optional dependency of this module: a test that maps this filter declares
 * {@code opentelemetry-sdk-testing} itself, so no other suite gets an OpenTelemetry API on its path.
 */
public class ServerSpanFilter implements Filter {
    static final String REQUEST_ID = "X-Test-Request";
    private static final AttributeKey<String> TEST_REQUEST = AttributeKey.stringKey("test.request");

    private static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();
    private static final SdkTracerProvider PROVIDER = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build();
    private static final AtomicInteger requests = new AtomicInteger();
    private static boolean registered;

    @Override
    public void init(FilterConfig config) {
        registerGlobally();
    }

    /**
     * Makes this SDK the global OpenTelemetry, once per JVM, as an application that configures its own
     * registers it ({@code buildAndRegisterGlobal}) or the agent does: where {@code tracingSpan=own}
     * finds its tracer. A test whose webapp maps no server span calls it before the first request.
     */
    public static synchronized void registerGlobally() {
        if (!registered) {
            OpenTelemetrySdk.builder().setTracerProvider(PROVIDER).buildAndRegisterGlobal();
            registered = true;
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        Span span = PROVIDER.get("test-server").spanBuilder(http.getMethod() + " " + http.getRequestURI())
                .setSpanKind(SpanKind.SERVER).setAttribute(TEST_REQUEST, String.valueOf(http.getHeader(REQUEST_ID)))
                .startSpan();
        try (Scope current = span.makeCurrent()) {
            chain.doFilter(request, response);
        } finally {
            span.end();
        }
    }

    @Override
    public void destroy() {
    }

    /**
     * GETs {@code uri} marked so its span is found (headers as name, value pairs), checks the answer's
     * status, and returns the request's span once it ended.
     */
    public static SpanData spanOfRequest(URI uri, int status, String... headers) throws InterruptedException {
        String id = "r" + requests.incrementAndGet();
        String[] all = new String[headers.length + 2];
        all[0] = REQUEST_ID;
        all[1] = id;
        System.arraycopy(headers, 0, all, 2, headers.length);
        HttpResponse<String> response = Http.get(uri, all);
        if (response.statusCode() != status) {
            throw new AssertionError("request " + id + " to " + uri + " answered " + response.statusCode()
                    + " instead of " + status + ": " + response.body());
        }
        return spanOf(id);
    }

    /**
     * The ended spans made under {@code parent} (a span of a request {@link #spanOfRequest} returned):
     * a child ends before its parent, so all of them are there once the parent is.
     */
    public static List<SpanData> childrenOf(SpanData parent) {
        return finishedSpans(span -> parent.getSpanId().equals(span.getParentSpanId()));
    }

    /** The ended spans of that name, wherever they are in their traces, in the order they ended. */
    public static List<SpanData> spansNamed(String name) {
        return finishedSpans(span -> name.equals(span.getName()));
    }

    private static List<SpanData> finishedSpans(Predicate<SpanData> which) {
        return EXPORTER.getFinishedSpanItems().stream().filter(which).collect(Collectors.toList());
    }

    /**
     * The ended span of the request that sent this {@value #REQUEST_ID}. The client may read the
     * response before the server's thread ends the span, so it is waited for, up to 10 s.
     */
    private static SpanData spanOf(String requestId) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            Optional<SpanData> span = EXPORTER.getFinishedSpanItems().stream()
                    .filter(each -> requestId.equals(each.getAttributes().get(TEST_REQUEST)))
                    .findFirst();
            if (span.isPresent()) {
                return span.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no span ended for request " + requestId);
            }
            Thread.sleep(5);
        }
    }
}
