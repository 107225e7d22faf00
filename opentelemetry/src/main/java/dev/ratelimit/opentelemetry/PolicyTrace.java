package dev.ratelimit.opentelemetry;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * What both ways of tracing one policy share ({@code tracingSpan=current} and {@code own}): the
 * attributes a decision writes on a span, and this thread's Redis time for the decision being made.
 * The names are documented in {@code docs/tracing.md}, and kept there, since dashboards and queries
 * name them.
 */
abstract class PolicyTrace implements DecisionTrace {
    static final AttributeKey<String> POLICY = AttributeKey.stringKey("ratelimit.policy");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("ratelimit.outcome");
    static final AttributeKey<Long> LIMIT = AttributeKey.longKey("ratelimit.limit");
    static final AttributeKey<Long> REMAINING = AttributeKey.longKey("ratelimit.remaining");
    static final AttributeKey<Long> RETRY_AFTER = AttributeKey.longKey("ratelimit.retry_after_ms");
    static final AttributeKey<Long> DELAY = AttributeKey.longKey("ratelimit.delay_ms");
    static final AttributeKey<Double> REDIS_ROUND_TRIP = AttributeKey.doubleKey("ratelimit.redis.round_trip_ms");
    static final AttributeKey<Boolean> DRY_RUN = AttributeKey.booleanKey("ratelimit.dry_run");
    static final AttributeKey<String> CLIENT_KEY = AttributeKey.stringKey("ratelimit.client.key");
    /** The event a refused request's span gets, at the instant of the denial. */
    static final String DENIED_EVENT = "ratelimit.denied";

    final String policyName;
    /**
     * This thread's Redis time for the decision being made: nanoseconds, and round trips. Reset by
     * {@link #startTiming}, so what another caller's peek left on a pooled thread never counts. A
     * {@code long[]} is the JDK's, so a thread that outlives the webapp keeps none of its classes.
     */
    private final ThreadLocal<long[]> redisTime = ThreadLocal.withInitial(() -> new long[2]);

    PolicyTrace(String policyName) {
        this.policyName = policyName;
    }

    /** A decision is about to be asked for on this thread: what the thread heard before is not its. */
    final void startTiming() {
        long[] time = redisTime.get();
        time[0] = 0;
        time[1] = 0;
    }

    /** Called by the limiter on the deciding thread, the request's, between {@link #asking} and the decision. */
    @Override
    public final void onRedisLatency(String policy, long nanos) {
        long[] time = redisTime.get();
        time[0] += nanos;
        time[1]++;
    }

    /** Writes the decision on {@code span}, unless it records nothing (not sampled, or no span at all). */
    final void write(Span span, Decision decision, boolean refused, String clientKey) {
        if (!span.isRecording()) {
            return;
        }
        span.setAttribute(POLICY, policyName);
        span.setAttribute(OUTCOME, DecisionTrace.outcome(decision));
        span.setAttribute(LIMIT, decision.limit());
        if (!decision.degraded() || decision.local()) {
            // A degraded answer of allow or deny counted nothing: it has no remaining to tell.
            span.setAttribute(REMAINING, decision.remaining());
        }
        long retryAfter = decision.allowed() ? 0 : decision.retryAfter().toMillis();
        if (!decision.allowed()) {
            span.setAttribute(RETRY_AFTER, retryAfter);
        }
        if (decision.delayed()) {
            span.setAttribute(DELAY, decision.delay().toMillis());
        }
        long[] time = redisTime.get();
        if (time[1] > 0) {
            span.setAttribute(REDIS_ROUND_TRIP, time[0] / 1_000_000.0);
        }
        if (!decision.allowed() && !refused) {
            span.setAttribute(DRY_RUN, true);
        }
        if (clientKey != null) {
            span.setAttribute(CLIENT_KEY, clientKey);
        }
        if (refused) {
            span.addEvent(DENIED_EVENT, Attributes.of(POLICY, policyName, RETRY_AFTER, retryAfter));
        }
    }
}
