package dev.ratelimit.bench.peers;

/** A rate limiter under benchmark: one decision per call. Thread-safe. */
public interface BenchLimiter extends AutoCloseable {
    /**
     * Takes one permit for this client key.
     *
     * @param key the client key, e.g. {@code client-42}
     * @return true if the call is admitted
     */
    boolean tryAcquire(String key);

    /**
     * A label for reports.
     *
     * @return e.g. {@code "bucket4j token bucket (Jedis)"}
     */
    String name();

    /** Releases every connection and thread this limiter opened. */
    @Override
    void close();
}
