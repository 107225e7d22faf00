package dev.ratelimit.bench;

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

    static String uri() {
        String uri = System.getProperty(URI_PROPERTY);
        if (uri == null) {
            throw new IllegalStateException("-D" + URI_PROPERTY + " is not set: run the benchmarks through "
                    + "BenchmarkReport, which starts Redis");
        }
        return uri;
    }
}
