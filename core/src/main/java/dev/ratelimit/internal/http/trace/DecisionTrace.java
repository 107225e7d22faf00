package dev.ratelimit.internal.http.trace;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitListener;

/**
 * One policy's decisions, told to the request's trace. {@code RateLimitPipeline.before} calls
 * {@link #asking} and then the returned {@link Asked}'s {@link Asked#decided decided} (or
 * {@link Asked#failed failed}) on the request's own thread, where a server span (the OpenTelemetry
 * agent's, or one an application made current) is the current one; as a {@link RateLimitListener}
 * of the policy's limiters it hears, between the two, how long each Redis round trip of the decision
 * took, on that same thread. Implemented by {@code ratelimit-opentelemetry}.
 */
public interface DecisionTrace extends RateLimitListener {
    /**
     * The request is limited by this policy and its limiter is about to be asked.
     *
     * @return what is told how this decision ended, exactly once: with {@code tracingSpan=own} the span
     *     this call started (and made current), which it ends
     */
    Asked asking();

    /** One decision being made on the request's thread, between {@link #asking} and its end. */
    interface Asked {
        /**
         * The policy decided the request ({@link #outcome} says it in one word); {@code refused} false in a dry run;
         * {@code clientKey} as the limiter was given it, or null when it may be a secret.
         */
        void decided(Decision decision, boolean refused, String clientKey);

        /**
         * The decision threw instead (never for a Redis failure, which {@code onRedisFailure} answers);
         * the pipeline rethrows {@code failure} once this returns.
         */
        void failed(Throwable failure);
    }

    /** A decision in one word: {@code allowed}, {@code denied}, {@code delayed} or {@code degraded}. */
    static String outcome(Decision decision) {
        if (decision.degraded()) {
            return "degraded";
        }
        if (decision.delayed()) {
            return "delayed";
        }
        return decision.allowed() ? "allowed" : "denied";
    }
}
