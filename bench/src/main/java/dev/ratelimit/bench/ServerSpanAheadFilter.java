package dev.ratelimit.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Collection;

/**
 * The tracing rows' stand-in for the OpenTelemetry Java agent, mapped ahead of the limiter: the real
 * SDK makes a server span per request (every one sampled) and makes it current while the chain runs,
 * and a batch processor hands the ended spans to an exporter that drops them. So the rows pay for
 * spans being made, filled and queued, not for shipping them, which happens off the request's
 * thread in a real deployment too. The SDK is registered as the global OpenTelemetry, once per JVM,
 * where {@code tracingSpan=own} finds its tracer as it finds the agent's.
 */
public final class ServerSpanAheadFilter implements Filter {
    private static final Tracer TRACER = register();

    private static Tracer register() {
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(BatchSpanProcessor.builder(new DroppingExporter()).build()).build();
        return OpenTelemetrySdk.builder().setTracerProvider(provider).buildAndRegisterGlobal().getTracerProvider()
                .get("http-bench-server");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        Span span = TRACER.spanBuilder(http.getMethod() + " " + http.getRequestURI()).setSpanKind(SpanKind.SERVER)
                .startSpan();
        try (Scope current = span.makeCurrent()) {
            chain.doFilter(request, response);
        } finally {
            span.end();
        }
    }

    /** Takes every batch and ships nothing. */
    private static final class DroppingExporter implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
