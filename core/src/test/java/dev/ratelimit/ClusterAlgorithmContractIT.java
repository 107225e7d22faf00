package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** The algorithm contract on a Redis Cluster of three masters with a replica each. */
class ClusterAlgorithmContractIT extends AlgorithmContract {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private RedisClusterClient admin;

    @AfterAll
    void closeAdmin() {
        if (admin != null) {
            admin.close();
        }
    }

    /** Jedis runs no MULTI/EXEC on Cluster: only Lua; asking for transactions fails up front. */
    @Override
    List<Transport> transports() {
        return List.of(Transport.LUA);
    }

    @Test
    void transactionsAreRefusedWhenTheLimiterIsBuilt() {
        try (RedisStore store = RedisStore.connect(settings())) {
            assertThatThrownBy(() -> RateLimiter.builder(store).transport(Transport.TRANSACTION)
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(1))).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("transport 'transaction' is not available on Redis Cluster (its client "
                            + "runs no MULTI/EXEC), but was chosen for RedisStore(cluster at ")
                    .hasMessageEndingWith("); use transport 'lua'");
        }
    }

    @Override
    RedisSettings settings() {
        return RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofSeconds(2))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build();
    }

    @Override
    String keyPrefix() {
        return cluster.keyPrefix();
    }

    @Override
    synchronized UnifiedJedis admin() {
        if (admin == null) {
            admin = cluster.newClient();
        }
        return admin;
    }

    @Override
    List<String> allKeys() {
        List<String> keys = new ArrayList<>();
        for (String node : cluster.masters()) {
            try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(keyPrefix() + "*").count(1000));
                    keys.addAll(page.getResult());
                    cursor = page.getCursor();
                } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            }
        }
        return keys;
    }

    @Override
    void flushScripts() {
        for (String node : cluster.nodes()) {
            try (Jedis jedis = new Jedis(HostAndPort.from(node))) {
                jedis.scriptFlush();
            }
        }
    }
}
