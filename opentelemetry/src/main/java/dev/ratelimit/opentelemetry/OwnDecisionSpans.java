package dev.ratelimit.opentelemetry;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;

/**
 * {@code tracingSpan=own}: each decision of one policy on a short span of its own, {@code ratelimit
 * <policy>}, a child of whatever is current on the request's thread (a root span when nothing is).
 * It starts when the limiter is asked, is current while the decision is made (so a span the agent
 * makes for the Redis call is its child), and ends when the decision is known, before the chain
 * runs; a delayed request's wait for its turn is not in it.
 *
 * <p>The tracer is the global OpenTelemetry's: the agent's, or the SDK an application registered
 * ({@code buildAndRegisterGlobal}). Until one is registered no span is made, and the global is not
 * touched: {@link GlobalOpenTelemetry#get} would fix it to a no-op and refuse the application's
 * registration that comes later.
 */
final class OwnDecisionSpans extends PolicyTrace {
    /** The instrumentation scope the spans are made under. */
    static final String SCOPE = "dev.ratelimit.opentelemetry";
    /** Told how a decision ended when no tracer was registered: nothing to end. */
    private static final DecisionTrace.Asked UNTRACED = new DecisionTrace.Asked() {
        @Override
        public void decided(Decision decision, boolean refused, String clientKey) {
        }

        @Override
        public void failed(Throwable failure) {
        }
    };

    private final String spanName;
    /** The global tracer, once there is one; looked up again while there is none. */
    private volatile Tracer tracer;

    OwnDecisionSpans(String policyName) {
        super(policyName);
        this.spanName = "ratelimit " + policyName;
    }

    @Override
    public DecisionTrace.Asked asking() {
        startTiming();
        Tracer known = tracer();
        if (known == null) {
            return UNTRACED;
        }
        Span span = known.spanBuilder(spanName).setSpanKind(SpanKind.INTERNAL).startSpan();
        return new OwnSpan(span, span.makeCurrent());
    }

    private Tracer tracer() {
        Tracer known = tracer;
        if (known == null && GlobalOpenTelemetry.isSet()) {
            known = GlobalOpenTelemetry.get().getTracer(SCOPE);
            tracer = known;
        }
        return known;
    }

    @Override
    public String toString() {
        return "opentelemetry, tracingSpan own";
    }

    /** One decision's span, current on the request's thread until the decision is known. */
    private final class OwnSpan implements DecisionTrace.Asked {
        private final Span span;
        private final Scope current;

        OwnSpan(Span span, Scope current) {
            this.span = span;
            this.current = current;
        }

        @Override
        public void decided(Decision decision, boolean refused, String clientKey) {
            try {
                write(span, decision, refused, clientKey);
            } finally {
                end();
            }
        }

        @Override
        public void failed(Throwable failure) {
            try {
                span.recordException(failure);
                span.setStatus(StatusCode.ERROR);
            } finally {
                end();
            }
        }

        private void end() {
            current.close();
            span.end();
        }
    }
}
