package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A master of the Cluster fails over while decisions flow; afterwards they are exact again. */
class ClusterFailoverIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static RedisStore store() {
        return RedisStore.connect(RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(500))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build());
    }

    private static RateLimiter limiter(RedisStore store, FailurePolicy onFailure) {
        return RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName("failover")
                .onRedisFailure(onFailure).localDenyCache(false)
                .rule(Rule.of(Algorithm.SLIDING_LOG, 20, Duration.ofMinutes(10))).build();
    }

    @Test
    void aManualFailoverKeepsDecisionsFlowingAndExactAfterwards() throws Exception {
        try (RedisStore nodeA = store(); RedisStore nodeB = store()) {
            RateLimiter onA = limiter(nodeA, FailurePolicy.ALLOW);
            // Afterwards, limiters that throw: a failure there shows its cause instead of a degraded answer.
            RateLimiter strictA = limiter(nodeA, null);
            RateLimiter strictB = limiter(nodeB, null);
            String before = cluster.masterOf("{client-0-1}");

            FailoverSupport.Traffic traffic = FailoverSupport.during(onA, () -> cluster.failover("{client-0-1}"));

            assertThat(cluster.masterOf("{client-0-1}")).as("the slot moved to the replica").isNotEqualTo(before);
            assertThat(traffic.decisions()).as("decisions kept coming").isGreaterThan(100);
            assertThat(FailoverSupport.untilExact(onA, "probe-")).isLessThan(Duration.ofSeconds(5));
            // The same hash tag as the failed-over slot, a client not used before.
            FailoverSupport.assertExact(strictA, strictB, "client-0-1", 20 - countSoFar(onA, "client-0-1"));
            FailoverSupport.assertExact(strictA, strictB, "fresh-after-failover", 20);
        }
    }

    /**
     * Issue 24: a master of the Cluster fails over with no traffic (a manual failover, or a crash and
     * its replica's promotion), then nothing for longer than the cool-down and the quiet check, then a
     * burst over two nodes at once for a client on that slot: exactly the limit, none left to the
     * failure policy. The stores' slot maps still name the old master: its first call learns the new
     * map, and the calls that waited for it follow.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"manual failover", "master killed"})
    void aQuietFailoverThenABurstOverTwoNodesAdmitsExactlyTheLimit(String how) throws Exception {
        String client = "quiet-" + how.replace(' ', '-');
        String killed = null;
        try (RedisStore nodeA = store(); RedisStore nodeB = store()) {
            List<RateLimiter> nodes = List.of(limiter(nodeA, FailurePolicy.ALLOW), limiter(nodeB, FailurePolicy.ALLOW));
            FailoverSupport.warm(nodes, "warm-" + client + "-");
            String before = cluster.masterOf("{" + client + "}");

            if (how.startsWith("manual")) {
                cluster.failover("{" + client + "}");
            } else {
                killed = cluster.killMaster("{" + client + "}");
            }
            assertThat(cluster.masterOf("{" + client + "}")).isNotEqualTo(before);
            Thread.sleep(RedisSettings.DEFAULT_BREAKER_COOL_DOWN.toMillis() + 1500);

            assertThat(FailoverSupport.quietBurst(nodes, client, 25)).isEqualTo(20);
        } finally {
            if (killed != null) {
                cluster.restartNode(killed);
            }
        }
    }

    /** How much of the limit the traffic already took from a client (peek takes nothing). */
    private static long countSoFar(RateLimiter limiter, String key) {
        return 20 - limiter.peek(key).remaining();
    }
}
