package dev.ratelimit.servlet;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
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
import java.util.Optional;

/**
 * What the OpenTelemetry Java agent does around a webapp, done by a real SDK in a filter mapped
 * before the limiter's: a server span per request, current on the request's thread while the rest
 * of the chain runs, exported when it ends to an in-memory exporter the test reads. The request's
 * {@value #REQUEST_ID} header is on the span, so a test finds its own.
 */
public class ServerSpanFilter implements Filter {
    static final String REQUEST_ID = "X-Test-Request";

    private static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();
    private static final SdkTracerProvider PROVIDER = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build();

    @Override
    public void init(FilterConfig config) {
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        Span span = PROVIDER.get("test-server").spanBuilder(http.getMethod() + " " + http.getRequestURI())
                .setSpanKind(SpanKind.SERVER).setAttribute("test.request", String.valueOf(http.getHeader(REQUEST_ID)))
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
     * The ended span of the request that sent this {@value #REQUEST_ID}. The client may read the
     * response before the server's thread ends the span, so it is waited for, up to 10 s.
     */
    static SpanData spanOf(String requestId) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            Optional<SpanData> span = EXPORTER.getFinishedSpanItems().stream()
                    .filter(each -> requestId.equals(each.getAttributes().get(
                            io.opentelemetry.api.common.AttributeKey.stringKey("test.request"))))
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
