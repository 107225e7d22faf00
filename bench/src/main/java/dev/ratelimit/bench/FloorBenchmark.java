package dev.ratelimit.bench;

import dev.ratelimit.bench.peers.Peers;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import redis.clients.jedis.RedisClient;

/**
 * The physical limit: one EVALSHA of a script that does nothing but return, with one key, through
 * the same kind of Jedis pool. No limiter can be faster than one round trip.
 */
@State(Scope.Benchmark)
public class FloorBenchmark {
    private RedisClient jedis;
    private String sha;

    @Setup(Level.Trial)
    public void setUp() {
        jedis = Peers.pooledJedis(BenchRedis.uri(), BenchRedis.POOL_SIZE, "bench-floor");
        sha = jedis.scriptLoad("return 1");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        jedis.close();
    }

    @Benchmark
    public Object evalsha(KeyCursor keys) {
        return jedis.evalsha(sha, List.of(keys.next(Traffic.DISTINCT)), List.of());
    }
}
