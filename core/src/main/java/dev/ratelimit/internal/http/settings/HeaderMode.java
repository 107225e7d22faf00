package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.ConfigNames;

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

    public boolean draft() {
        return this == DRAFT || this == BOTH;
    }

    public boolean legacy() {
        return this == LEGACY || this == BOTH;
    }

    /**
     * @throws IllegalArgumentException if the name is not one of draft, legacy, both, none
     */
    public static HeaderMode fromConfigName(String name) {
        return ConfigNames.find("headers", values(), HeaderMode::configName, name);
    }

    @Override
    public String toString() {
        return configName;
    }
}
