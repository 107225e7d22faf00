package dev.ratelimit.bench;

import dev.ratelimit.RedisSettings;
import java.time.Duration;

/** Where the benchmarks find Redis: the runner starts one and hands its URI to every forked JVM. */
final class BenchRedis {
    /** System property carrying the Redis URI into JMH's forked JVMs. */
    static final String URI_PROPERTY = "bench.redis.uri";
    /** Connections per pool, for ours, the floor and the peers alike: enough for 64 threads. */
    static final int POOL_SIZE = 64;
    /** The window of every admitted-traffic limit, ours and the peers': long enough that keys do not churn. */
    static final java.time.Duration WINDOW = java.time.Duration.ofMinutes(1);

    private BenchRedis() {
    }

    /**
     * Settings for a store of ours: a 2 s timeout, as the benchmarks count commands and time decisions,
     * and a busy machine's slow answer must not fail them (a smoke run at load 16 once did at 200 ms).
     */
    static RedisSettings.Builder settings(String uri) {
        return RedisSettings.builder(uri).timeout(Duration.ofSeconds(2));
    }

    static String uri() {
        String uri = System.getProperty(URI_PROPERTY);
        if (uri == null) {
            throw new IllegalStateException("-D" + URI_PROPERTY + " is not set: run the benchmarks through "
                    + "BenchmarkReport, which starts Redis");
        }
        return uri;
    }
}
