package dev.ratelimit.bench;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Our decisions per second, per algorithm and traffic, with the local deny cache on or off. */
@State(Scope.Benchmark)
public class LimiterBenchmark {
    @Param({"fixed-window", "sliding-log", "sliding-window", "token-bucket", "leaky-bucket", "gcra"})
    public String algorithm;

    /**
     * hot-denied-cached is hot-denied with the local deny cache on; every other case has it off.
     * distinct-alone is distinct with coalescing off: each decision in a round trip of its own.
     */
    @Param({"distinct", "distinct-alone", "hot-admitted", "hot-denied", "hot-denied-cached"})
    public String traffic;

    private RedisStore store;
    private RateLimiter limiter;
    private Traffic shape;

    @Setup(Level.Trial)
    public void setUp() {
        boolean denied = traffic.startsWith("hot-denied");
        boolean alone = traffic.equals("distinct-alone");
        shape = denied ? Traffic.HOT_DENIED : alone ? Traffic.DISTINCT : Traffic.valueOf(traffic.toUpperCase().replace('-', '_'));
        store = RedisStore.connect(BenchRedis.settings(BenchRedis.uri())
                .poolSize(BenchRedis.POOL_SIZE).coalescing(!alone).build());
        // Admitted traffic: a limit no run reaches, per minute like real limits: a one-second window
        // would make every key expire and be created again each second, measuring churn, not limiting.
        Rule rule = denied ? Rule.of(Algorithm.fromConfigName(algorithm), 1, Duration.ofHours(1))
                : Rule.of(Algorithm.fromConfigName(algorithm), 1_000_000_000L, BenchRedis.WINDOW);
        limiter = RateLimiter.builder(store).policyName("bench-" + algorithm + "-" + traffic)
                .localDenyCache(traffic.equals("hot-denied-cached")).rule(rule).build();
        limiter.reset("hot");
        if (denied) {
            limiter.tryAcquire("hot");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
    }

    @Benchmark
    public boolean decide(KeyCursor keys) {
        return limiter.tryAcquire(keys.next(shape)).allowed();
    }
}
