package dev.ratelimit;

/**
 * Hears every decision of a {@link RateLimiter}: for logs, metrics or alerts of your own. Called on
 * the deciding thread, after the decision, so keep it quick and never throw (an exception from a
 * listener is logged and ignored). Every method does nothing unless overridden.
 */
public interface RateLimitListener {

    /**
     * Every decision handed out, before {@link #onAllowed} or {@link #onDenied} hears it: for
     * metrics that count each decision once by its outcome.
     *
     * @param cachedDenial whether the local deny cache answered it, without asking Redis
     */
    default void onDecision(String policyName, String key, Decision decision, boolean cachedDenial) {
    }

    /**
     * A call to Redis for a decision answered, and took this long (a failed one reaches
     * {@link #onFailure} instead).
     */
    default void onRedisLatency(String policyName, long nanos) {
    }

    /**
     * The limiter this listener was given to is built: for gauges that read its
     * {@link RateLimiter#stats()}. Called once per limiter, by {@link RateLimiterBuilder#build()}.
     */
    default void onBuilt(RateLimiter limiter) {
    }

    /**
     * The permits were granted: by Redis, or by the failure policy when {@code decision.degraded()}
     * (by this node's own limiter when also {@code decision.local()}).
     */
    default void onAllowed(String policyName, String key, Decision decision) {
    }

    /**
     * The request was refused: by Redis, by the local deny cache, or by the failure policy (with
     * {@code onRedisFailure=local}, by this node's own limiter: {@code decision.local()}).
     */
    default void onDenied(String policyName, String key, Decision decision) {
    }

    /**
     * Redis could not be asked. Called before the failure policy's decision is handed out (which
     * then also reaches {@link #onAllowed} or {@link #onDenied}, marked degraded).
     */
    default void onFailure(String policyName, String key, RedisFailureException cause) {
    }

    /**
     * A counter kept more writes through a Redis outage than its {@code pendingLimit} and dropped
     * the oldest.
     *
     * @param dropped how many were dropped just now
     * @param totalDropped how many this counter has dropped since it was built
     */
    default void onCounterWritesDropped(String counterName, long dropped, long totalDropped) {
    }
}
