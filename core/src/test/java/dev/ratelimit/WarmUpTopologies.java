package dev.ratelimit;


import dev.ratelimit.internal.scripts.LuaEvaluator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** What a warm-up left on one Redis node, seen from a client of the test's own. */
final class WarmUpTopologies {
    private WarmUpTopologies() {
    }

    /** The limiter whose warm-up the tests look at. */
    static RateLimiter warmedUp(RedisStore store, String keyPrefix) {
        return RateLimiter.builder(store).keyPrefix(keyPrefix).policyName("warm" + System.nanoTime())
                .rule(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1))).warmUp(true).build();
    }

    /**
     * The connections named {@code ratelimit} on a node, once what was closed has left its client list
     * (Redis lists a closed connection until it has read the close; the topology's discovery opens and
     * closes some): waits up to 5 s for {@code expected}, then answers what it sees.
     */
    static long ours(String node, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long ours;
        while ((ours = count(node)) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return ours;
    }

    private static long count(String node) {
        try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
            String list = new String((byte[]) jedis.sendCommand(Protocol.Command.CLIENT, "LIST"), StandardCharsets.UTF_8);
            return list.lines().filter(line -> line.contains(" name=ratelimit ")).count();
        }
    }

    /** Whether the node knows the script of {@code sliding-log} decisions. */
    static boolean hasTheScript(String node) {
        try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
            List<?> exists = (List<?>) jedis.sendCommand(Protocol.Command.SCRIPT, "EXISTS",
                    LuaEvaluator.script(Algorithm.SLIDING_LOG).sha1());
            return Long.valueOf(1).equals(exists.get(0));
        }
    }
}
