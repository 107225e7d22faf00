package dev.ratelimit.opentelemetry;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import io.opentelemetry.api.trace.Span;

/**
 * One HTTP policy's decisions on the request's current span ({@code tracing=opentelemetry}): the
 * span the OpenTelemetry Java agent (or an application's own SDK) made current for the request, read
 * with {@link Span#current()} on the request's thread. No span of its own: a trace gains attributes,
 * not a span per request, unless {@code tracingSpan=own} asks for one ({@link #withOwnSpans}). A span
 * that does not record (none current, or not sampled) costs one look. The core finds this class by
 * name ({@code TracingBinding}).
 */
public final class DecisionSpans extends PolicyTrace implements DecisionTrace.Asked {
    private DecisionSpans(String policyName) {
        super(policyName);
    }

    /** The trace of one policy's decisions; what {@code tracing=opentelemetry} makes the core call. */
    public static DecisionSpans forPolicy(String policyName) {
        return new DecisionSpans(policyName);
    }

    /**
     * The trace of one policy's decisions, each on a span of its own; what {@code tracingSpan=own}
     * makes the core call.
     */
    public static DecisionTrace withOwnSpans(String policyName) {
        return new OwnDecisionSpans(policyName);
    }

    /** Nothing to start: the decision goes on the span that is current when it is made. */
    @Override
    public DecisionTrace.Asked asking() {
        startTiming();
        return this;
    }

    @Override
    public void decided(Decision decision, boolean refused, String clientKey) {
        write(Span.current(), decision, refused, clientKey);
    }

    /** The request's span is not ours: whoever made it records how the request failed. */
    @Override
    public void failed(Throwable failure) {
    }

    @Override
    public String toString() {
        return "opentelemetry";
    }
}
