package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.testing.RedisClusterExtension;
import dev.ratelimit.testing.ServerProduct;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * Every Cluster master is read, not only the one a seed names: with {@code maxmemory-policy
 * volatile-lru} on one master of three, that master is found and named, alone; so it is through a
 * caller's {@code RedisClusterClient}, whose replicas are left out. The masters follow the slot map:
 * once a replica without eviction has taken over, the finding is gone.
 */
class ClusterEvictionIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private final AtomicLong nanos = new AtomicLong(System.nanoTime());

    private static void config(String node, String name, String value) {
        try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
            jedis.configSet(name, value);
        }
    }

    private static String server(String node) {
        try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
            return ServerProduct.named(jedis.info("server"));
        }
    }

    private static RateLimiter limiter(RedisStore store) {
        return RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName("cluster-evict")
                .localDenyCache(false).rule(Rule.of(Algorithm.SLIDING_LOG, 100, Duration.ofMinutes(1))).build();
    }

    /** A client whose key lives on {@code master}. */
    private static String clientOn(String master) {
        for (int i = 0; ; i++) {
            if (cluster.masterOf("{c" + i + "}").equals(master)) {
                return "c" + i;
            }
        }
    }

    @Test
    void theOneMasterOfThreeThatMayEvictIsFoundAndNamedAloneUntilAReplicaTakesOver() {
        List<String> masters = cluster.masters();
        String evicting = masters.get(1);
        config(evicting, "maxmemory-policy", "volatile-lru");
        config(evicting, "maxmemory", "1gb");
        RedisSettings settings = RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(500))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build();
        String log;
        try (RedisStore store = RedisStore.connect(settings, nanos::get);
                RedisClusterClient callers = cluster.newClient()) {
            RateLimiter limiter;
            RateLimiter wrapped;
            try (CapturedErr err = new CapturedErr()) {
                limiter = limiter(store);
                wrapped = limiter(RedisStore.wrap(callers));
                log = err.text();
            }

            String server = server(evicting);
            String where = server + " at " + settings.location() + " (node " + evicting + ")";
            assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RedisStore - " + where + " [EVICTING_REDIS]:"
                    + " maxmemory-policy is volatile-lru")).as(log).isEqualTo(1);
            assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RedisStore - " + server + " at a caller's"
                    + " RedisClusterClient (node " + evicting + ") [EVICTING_REDIS]: maxmemory-policy is volatile-lru"))
                    .as(log).isEqualTo(1);
            assertThat(CapturedErr.count(log, "EVICTING_REDIS")).as("no other node: " + log).isEqualTo(2);
            RateLimiterStats stats = limiter.stats();
            assertThat(stats.redisEviction()).startsWith(where + " has maxmemory-policy volatile-lru")
                    .doesNotContain("(node " + masters.get(0) + ")").doesNotContain("(node " + masters.get(2) + ")");
            assertThat(stats.redisMaxmemoryPolicy()).contains("volatile-lru on cluster at")
                    .contains("noeviction on cluster at " + String.join(",", settings.clusterNodes()) + " (node "
                            + masters.get(0) + ")")
                    .contains("(node " + masters.get(2) + ")");
            assertThat(stats.redisEvictedKeys()).isZero();
            assertThat(stats.redisServers().keySet()).as("each master by its address").containsExactlyInAnyOrderElementsOf(
                    masters);
            assertThat(stats.redisServers()).containsEntry(evicting, server);
            assertThat(wrapped.stats().redisEviction()).startsWith(server + " at a caller's RedisClusterClient (node "
                    + evicting + ") has maxmemory-policy volatile-lru");
            assertThat(wrapped.stats().redisMaxmemoryPolicy().split("; ")).as("the three masters, no replica")
                    .hasSize(3);

            String client = clientOn(evicting);
            cluster.failover("{" + client + "}");
            // The slot map learns of the failover from the MOVED this decision meets; the next reading
            // asks the masters it names.
            assertThat(limiter.tryAcquire(client).degraded()).isFalse();
            nanos.addAndGet(EvictionWatch.CHECK_INTERVAL.toNanos() + 1);
            assertThat(limiter.tryAcquire(client).degraded()).isFalse();

            assertThat(limiter.stats().redisEviction()).as("the promoted replica never evicts").isNull();
            assertThat(limiter.stats().redisMaxmemoryPolicy()).isEqualTo("noeviction");
        }
    }
}
