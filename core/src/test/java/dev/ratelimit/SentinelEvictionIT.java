package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisSentinelExtension;
import dev.ratelimit.testing.ServerProduct;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** Through Sentinel, the master it names is read: its eviction policy is found, and named by its address. */
class SentinelEvictionIT {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Test
    void theMasterSentinelNamesIsReadAndNamed() {
        String server;
        try (Jedis master = new Jedis("127.0.0.1", sentinel.masterPort())) {
            master.configSet("maxmemory-policy", "allkeys-lru");
            master.configSet("maxmemory", "512mb");
            server = ServerProduct.named(master.info("server"));
        }
        RedisSettings settings = RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(500))
                .sentinel(sentinel.masterName(), Arrays.asList(sentinel.sentinelNodes().split(","))).build();
        String log;
        RateLimiter limiter;
        try (RedisStore store = RedisStore.connect(settings); CapturedErr err = new CapturedErr()) {
            limiter = RateLimiter.builder(store).keyPrefix(sentinel.keyPrefix()).policyName("sentinel-evict")
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1))).build();
            assertThat(limiter.tryAcquire("c").degraded()).isFalse();
            log = err.text();
        }

        String where = server + " at " + settings.location() + " (node 127.0.0.1:" + sentinel.masterPort() + ")";
        assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RedisStore - " + where + " [EVICTING_REDIS]:"
                + " maxmemory-policy is allkeys-lru with maxmemory 536870912 bytes")).as(log).isEqualTo(1);
        assertThat(limiter.stats().redisEviction()).startsWith(where + " has maxmemory-policy allkeys-lru");
        assertThat(limiter.stats().redisServer()).isEqualTo(server);
    }
}
