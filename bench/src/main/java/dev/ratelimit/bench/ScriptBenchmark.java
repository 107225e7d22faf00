package dev.ratelimit.bench;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.bench.peers.Peers;
import dev.ratelimit.internal.redis.LuaScript;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import redis.clients.jedis.RedisClient;

/**
 * Splits the distance between the floor and our limiter in two. {@code set-px} is the least any
 * limiter's script must do (one write with an expiry); each algorithm's own script, run by a bare
 * EVALSHA with the arguments RateLimiter sends, is what Redis costs without our Java code around it.
 */
@State(Scope.Benchmark)
public class ScriptBenchmark {
    @Param({"set-px", "fixed-window", "sliding-log", "sliding-window", "token-bucket", "leaky-bucket", "gcra"})
    public String script;

    private RedisClient jedis;
    private String sha;
    private List<String> args;
    private String keyPrefix;

    @Setup(Level.Trial)
    public void setUp() {
        jedis = Peers.pooledJedis(BenchRedis.uri(), BenchRedis.POOL_SIZE, "bench-script");
        keyPrefix = "ratelimit:script-" + script + ":{";
        if (script.equals("set-px")) {
            sha = jedis.scriptLoad("return redis.call('SET', KEYS[1], '1', 'PX', '60000')");
            args = List.of();
            return;
        }
        sha = jedis.scriptLoad(LuaScript.limiter(script).source());
        args = admittedArgs(script);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        jedis.close();
    }

    @Benchmark
    public Object evalsha(KeyCursor keys) {
        return jedis.evalsha(sha, List.of(keyPrefix + keys.next(Traffic.DISTINCT) + "}"), args);
    }

    /**
     * What a limiter sends for LimiterBenchmark's admitted rule, 10^9 per minute: consume, one
     * permit, then the rule's own arguments.
     */
    static List<String> admittedArgs(String algorithm) {
        List<String> args = new ArrayList<>(List.of("1", "1"));
        Rule rule = Rule.of(Algorithm.fromConfigName(algorithm), 1_000_000_000L, BenchRedis.WINDOW);
        args.addAll(rule.algorithm().scriptArguments(rule));
        return args;
    }
}
