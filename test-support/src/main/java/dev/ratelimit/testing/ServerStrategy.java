package dev.ratelimit.testing;

/** Ways to obtain a Redis server, in their default order of preference. */
public enum ServerStrategy {
    /** An existing server named by {@code REDIS_URL} / {@code -Dredis.url}; not owned. */
    URL("url", "REDIS_URL"),
    /** A {@code redis:7.0-alpine} container started through Testcontainers. */
    TESTCONTAINERS("testcontainers", "testcontainers"),
    /** A {@code redis-server} binary found on {@code PATH}, started as a child process. */
    PATH("path", "redis-server on PATH"),
    /** The {@code redis-server} binary shipped inside the embedded-redis jar, started as a child process. */
    EMBEDDED("embedded", "embedded-redis"),
    /** The binary of {@link RedisLine#current()}, a child process; only if asked ({@link RedisServerExtension#line()}). */
    LINE("line", "a line's binary");

    private final String propertyValue;
    private final String source;

    ServerStrategy(String propertyValue, String source) {
        this.propertyValue = propertyValue;
        this.source = source;
    }

    /**
     * The value that selects this strategy in {@value RedisServerExtension#STRATEGY_PROPERTY}.
     *
     * @return e.g. {@code "embedded"}
     */
    public String propertyValue() {
        return propertyValue;
    }

    /**
     * The label {@link RedisServerExtension#source()} reports for a server obtained this way.
     *
     * @return e.g. {@code "redis-server on PATH"}
     */
    public String source() {
        return source;
    }
}
