package dev.ratelimit.http;

import java.util.Locale;

/** Which rate-limit headers an answer carries. */
public enum HeaderMode {
    /** IETF httpapi draft fields: {@code RateLimit-Policy} and {@code RateLimit}. The default. */
    DRAFT("draft"),
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    LEGACY("legacy"),
    /** Both sets. */
    BOTH("both"),
    /** No rate-limit headers (a denial still carries {@code Retry-After}). */
    NONE("none");

    private final String configName;

    HeaderMode(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    boolean draft() {
        return this == DRAFT || this == BOTH;
    }

    boolean legacy() {
        return this == LEGACY || this == BOTH;
    }

    /**
     * @throws IllegalArgumentException if the name is not one of draft, legacy, both, none
     */
    public static HeaderMode fromConfigName(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (HeaderMode mode : values()) {
                if (mode.configName.equals(wanted)) {
                    return mode;
                }
            }
        }
        throw new IllegalArgumentException("headers must be one of draft, legacy, both, none, but was '" + name + "'");
    }

    @Override
    public String toString() {
        return configName;
    }
}
