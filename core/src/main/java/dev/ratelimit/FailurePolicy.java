package dev.ratelimit;

import java.util.Locale;

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
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (FailurePolicy policy : values()) {
                if (policy.configName.equals(wanted)) {
                    return policy;
                }
            }
        }
        throw new IllegalArgumentException("onRedisFailure must be one of allow, deny, but was '" + name + "'");
    }

    @Override
    public String toString() {
        return configName;
    }
}
