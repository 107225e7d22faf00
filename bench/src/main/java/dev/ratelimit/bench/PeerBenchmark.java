package dev.ratelimit.bench;

import dev.ratelimit.bench.peers.BenchLimiter;
import dev.ratelimit.bench.peers.Bucket4jLimiter;
import dev.ratelimit.bench.peers.NaiveSortedSetLimiter;
import dev.ratelimit.bench.peers.RedissonLimiter;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** The peers through their public APIs, with the same limits and the same pool size as ours. */
@State(Scope.Benchmark)
public class PeerBenchmark {
    @Param({"bucket4j", "redisson", "naive"})
    public String peer;

    @Param({"distinct", "hot-admitted"})
    public String traffic;

    private BenchLimiter limiter;
    private Traffic shape;

    @Setup(Level.Trial)
    public void setUp() {
        shape = Traffic.valueOf(traffic.toUpperCase().replace('-', '_'));
        long limit = 1_000_000_000L;
        Duration window = BenchRedis.WINDOW;
        String uri = BenchRedis.uri();
        switch (peer) {
            case "bucket4j":
                limiter = Bucket4jLimiter.create(uri, limit, window, BenchRedis.POOL_SIZE);
                break;
            case "redisson":
                limiter = RedissonLimiter.create(uri, limit, window, BenchRedis.POOL_SIZE);
                break;
            default:
                limiter = NaiveSortedSetLimiter.create(uri, limit, window, BenchRedis.POOL_SIZE);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        limiter.close();
    }

    @Benchmark
    public boolean decide(KeyCursor keys) {
        return limiter.tryAcquire(keys.next(shape));
    }
}
