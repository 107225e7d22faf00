package dev.ratelimit;

import dev.ratelimit.internal.ConfigNames;

/** What a limiter answers when Redis cannot be asked (down, slow past the timeout, erroring). */
public enum FailurePolicy {
    /** Admit the request: availability over protection. The decision is marked degraded. */
    ALLOW("allow"),
    /** Refuse the request (HTTP 503 with Retry-After): protection over availability. */
    DENY("deny");

    private final String configName;

    FailurePolicy(String configName) {
        this.configName = configName;
    }

    /** {@code allow} or {@code deny}. */
    public String configName() {
        return configName;
    }

    /**
     * @throws IllegalArgumentException if the name is neither {@code allow} nor {@code deny}
     */
    public static FailurePolicy fromConfigName(String name) {
        return ConfigNames.find("onRedisFailure", values(), FailurePolicy::configName, name);
    }

    @Override
    public String toString() {
        return configName;
    }
}
