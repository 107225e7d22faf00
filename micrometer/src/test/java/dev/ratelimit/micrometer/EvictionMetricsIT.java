package dev.ratelimit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerStrategy;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whether Redis may evict the limiter's keys, as Prometheus scrapes it: 1 with a policy that evicts,
 * 0 with {@code noeviction}, NaN while Redis has not said; and the keys evicted since start. On a
 * Redis of this class's own, whose memory settings it changes.
 */
class EvictionMetricsIT {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(ServerStrategy.PATH, ServerStrategy.EMBEDDED);

    private static String scrape(String uri, String policy) {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(uri); RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .rule(Rule.of(Algorithm.GCRA, 10, Duration.ofMinutes(1))).listener(metrics).build();
            return prometheus.scrape();
        }
    }

    @Test
    void aRedisThatMayEvictIsOneAndOneThatNeverEvictsIsZero() {
        redis.client().configSet("maxmemory-policy", "volatile-ttl");
        redis.client().configSet("maxmemory", "1gb");
        try {
            assertThat(scrape(redis.uri(), "evicting"))
                    .contains("ratelimit_redis_evicting{policy=\"evicting\",webapp=\"/shop\"} 1.0")
                    .contains("ratelimit_redis_evicted_keys{policy=\"evicting\",webapp=\"/shop\"} 0.0");
        } finally {
            redis.client().configSet("maxmemory-policy", "noeviction");
            redis.client().configSet("maxmemory", "0");
        }

        assertThat(scrape(redis.uri(), "safe"))
                .contains("ratelimit_redis_evicting{policy=\"safe\",webapp=\"/shop\"} 0.0")
                .contains("ratelimit_redis_evicted_keys{policy=\"safe\",webapp=\"/shop\"} 0.0");
    }

    @Test
    void aRedisThatHasNotSaidIsNaN() {
        assertThat(scrape("redis://127.0.0.1:1", "down"))
                .contains("ratelimit_redis_evicting{policy=\"down\",webapp=\"/shop\"} NaN")
                .contains("ratelimit_redis_evicted_keys{policy=\"down\",webapp=\"/shop\"} NaN");
    }
}
