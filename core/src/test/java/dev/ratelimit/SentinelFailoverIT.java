package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisSentinelExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** Sentinel fails the master over while decisions flow; the limiter follows and is exact again. */
class SentinelFailoverIT {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    private static RedisStore store() {
        return RedisStore.connect(RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(500))
                .sentinel(sentinel.masterName(), Arrays.asList(sentinel.sentinelNodes().split(","))).build());
    }

    private static RateLimiter limiter(RedisStore store, FailurePolicy onFailure) {
        return RateLimiter.builder(store).keyPrefix(sentinel.keyPrefix()).policyName("sentinel")
                .onRedisFailure(onFailure).localDenyCache(false)
                .rule(Rule.of(Algorithm.TOKEN_BUCKET, 20, Duration.ofMinutes(10))).build();
    }

    @Test
    void aFailoverKeepsDecisionsFlowingAndLimitingResumesExactly() throws Exception {
        try (RedisStore nodeA = store(); RedisStore nodeB = store()) {
            RateLimiter onA = limiter(nodeA, FailurePolicy.ALLOW);
            int masterBefore = sentinel.masterPort();
            assertThat(onA.tryAcquire("warm").degraded()).isFalse();

            FailoverSupport.Traffic traffic = FailoverSupport.during(onA, sentinel::failover);

            assertThat(sentinel.masterPort()).as("Sentinel promoted the replica").isNotEqualTo(masterBefore);
            assertThat(traffic.decisions()).as("decisions kept coming").isGreaterThan(100);
            assertThat(FailoverSupport.untilExact(onA, "probe-")).as("the client follows the new master")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(FailoverSupport.untilExact(limiter(nodeB, FailurePolicy.ALLOW), "probe-b-"))
                    .isLessThan(Duration.ofSeconds(10));
            FailoverSupport.assertExact(limiter(nodeA, null), limiter(nodeB, null), "fresh-after-failover", 20);
        }
    }

    @Test
    void eachMasterHasItsOwnBreakerSoANewMasterIsAskedAtOnce() throws Exception {
        // A breaker that stays open for a minute once it opens: only a new master's own breaker can
        // let decisions reach Redis before then.
        try (RedisStore store = RedisStore.connect(RedisSettings.builder("redis://127.0.0.1")
                .timeout(Duration.ofMillis(150)).circuitBreaker(1, Duration.ofMinutes(1))
                .sentinel(sentinel.masterName(), Arrays.asList(sentinel.sentinelNodes().split(","))).build())) {
            RateLimiter limiter = limiter(store, FailurePolicy.ALLOW);
            assertThat(limiter.tryAcquire("warm-breaker").degraded()).isFalse();
            int oldMaster = sentinel.masterPort();

            // The master stalls for a moment (shorter than Sentinel's down-after): one timeout opens its breaker.
            try (Jedis admin = new Jedis("127.0.0.1", oldMaster)) {
                admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "500", "ALL");
            }
            assertThat(limiter.tryAcquire("stalled").degraded()).isTrue();
            assertThat(limiter.stats().circuitBreakerState()).isEqualTo("OPEN");
            sentinel.failover();
            assertThat(sentinel.masterPort()).isNotEqualTo(oldMaster);

            assertThat(FailoverSupport.untilExact(limiter, "after-switch-")).as("the new master's breaker is closed")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(limiter.stats().circuitBreakerState()).as("the old master's breaker is forgotten").isEqualTo("CLOSED");
            FailoverSupport.assertExact(limiter(store, null), limiter(store, null), "fresh-on-new-master", 20);
        }
    }

    /**
     * Issue 24: a failover with no traffic, then nothing for longer than the breaker's cool-down and
     * the quiet check, then a burst over two nodes at once. The new master is asked by the first call
     * of each node; the others wait for its answer. Exactly the limit, none left to the policy.
     */
    @Test
    void aQuietFailoverThenABurstOverTwoNodesAdmitsExactlyTheLimit() throws Exception {
        try (RedisStore nodeA = store(); RedisStore nodeB = store()) {
            List<RateLimiter> nodes = List.of(limiter(nodeA, FailurePolicy.ALLOW), limiter(nodeB, FailurePolicy.ALLOW));
            FailoverSupport.warm(nodes, "warm-quiet-");
            int oldMaster = sentinel.masterPort();

            sentinel.failover();
            assertThat(sentinel.masterPort()).isNotEqualTo(oldMaster);
            Thread.sleep(RedisSettings.DEFAULT_BREAKER_COOL_DOWN.toMillis() + 1500);

            assertThat(FailoverSupport.quietBurst(nodes, "burst-after-quiet-failover", 25)).isEqualTo(20);
        }
    }
}
