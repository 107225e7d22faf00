package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RateLimiter#tryAcquireAll} on a Redis Cluster of three masters: one batch, one pipeline per
 * master holding keys, each key admitted exactly its limit.
 */
class ClusterBatchIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    /** Ten keys per master, so that a batch spans the whole cluster. */
    private static Map<String, Long> batchOverEveryMaster() {
        Map<String, Integer> perMaster = new LinkedHashMap<>();
        Map<String, Long> batch = new LinkedHashMap<>();
        for (int i = 0; batch.size() < 30; i++) {
            String key = "spread-" + i;
            if (perMaster.merge(cluster.masterOf(key), 1, Integer::sum) <= 10) {
                batch.put(key, 1L);
            }
        }
        assertThat(perMaster).hasSize(3);
        return batch;
    }

    /** The keys every master holds are decided in one batch, each as often as its limit allows. */
    @Test
    void aBatchOverEveryMasterAdmitsEachKeyItsLimit() {
        Map<String, Long> batch = batchOverEveryMaster();
        try (RedisStore store = RedisStore.connect(RedisSettings.builder("redis://127.0.0.1")
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName("spread")
                    .rule(Rule.of(Algorithm.GCRA, 3, Duration.ofMinutes(10))).build();
            for (int round = 0; round < 4; round++) {
                List<Boolean> allowed = limiter.tryAcquireAll(batch).values().stream().map(Decision::allowed)
                        .distinct().collect(java.util.stream.Collectors.toList());
                assertThat(allowed).as("round %d", round).containsExactly(round < 3);
            }
        }
    }
}
