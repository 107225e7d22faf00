package dev.ratelimit;

import dev.ratelimit.internal.support.ConfigNames;

/**
 * What a limiter answers when Redis cannot be asked (down, slow past the timeout, erroring, or the
 * circuit breaker open).
 */
public enum FailurePolicy {
    /** Admit the request: availability over protection. The decision is marked degraded. */
    ALLOW("allow"),
    /** Refuse the request (HTTP 503 with Retry-After): protection over availability. */
    DENY("deny"),
    /**
     * Limit on this node alone, in memory, with the rules' own algorithm at
     * {@link RateLimiterBuilder#localLimit(long) localLimit} per node: an outage neither lifts the
     * limits nor refuses everyone. Such decisions are {@link Decision#degraded() degraded} and
     * {@link Decision#local() local}; a denial is an ordinary one (HTTP 429 with rate-limit headers).
     * The first answer from Redis afterwards drops the local state, so Redis alone decides again.
     */
    LOCAL("local");

    private final String configName;

    FailurePolicy(String configName) {
        this.configName = configName;
    }

    /** {@code allow}, {@code deny} or {@code local}. */
    public String configName() {
        return configName;
    }

    /**
     * @throws IllegalArgumentException if the name is not {@code allow}, {@code deny} or {@code local};
     *     the message lists them
     */
    public static FailurePolicy fromConfigName(String name) {
        return ConfigNames.find("onRedisFailure", values(), FailurePolicy::configName, name);
    }

    @Override
    public String toString() {
        return configName;
    }
}
