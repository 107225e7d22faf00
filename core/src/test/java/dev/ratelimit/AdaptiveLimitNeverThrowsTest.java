package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Adaptive limits are an optimisation: nothing that goes wrong in them may fail a decision. */
class AdaptiveLimitNeverThrowsTest {
    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();

    @Test
    void aLoadSourceThatThrowsLeavesTheLimitsInForce() {
        AdaptiveLimit broken = AdaptiveLimit.floor(0.5).loadSource(() -> {
            throw new IllegalStateException("no CPU figure on this platform");
        });
        RateLimiter limiter = RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime)
                .localDenyCache(false).rule(Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)))
                .adaptive(broken).build();

        for (int second = 0; second < 3; second++) {
            redis.advance(Duration.ofSeconds(1));
            limiter.tryAcquire("c-" + second);
        }
        assertThat(limiter.tryAcquire("c").allowed()).isTrue();
        assertThat(limiter.tryAcquire("c").allowed()).isTrue();
        assertThat(limiter.tryAcquire("c").allowed()).as("the configured limit holds").isFalse();
        assertThat(limiter.adaptiveFactor()).isEqualTo(1.0);
    }

    @Test
    void gcraScalesToAnyRateWhereTheBucketsCannot() {
        // 7 a day with a burst of 100,000: the buckets' integer units would pass 2^51, GCRA keeps one interval.
        assertThatThrownBy(() -> Rule.builder(Algorithm.TOKEN_BUCKET, 7, Duration.ofDays(1)).burst(100_000).build())
                .hasMessageContaining("too fine-grained");
        Rule gcra = Rule.builder(Algorithm.GCRA, 7, Duration.ofDays(1)).burst(100_000).build();
        assertThat(gcra.burst()).isEqualTo(100_000);
        // So an adaptive GCRA rule scaled to such a rate builds too, instead of failing every decision.
        AdaptiveLimit busy = AdaptiveLimit.floor(0.01).loadSource(() -> 0.99);
        assertThat(busy.effectiveLimit(700, busy.factor(0.99, 0))).isEqualTo(7);
        assertThat(Rule.builder(Algorithm.GCRA, 7, Duration.ofDays(1)).burst(1_000).name("scaled").build().limit())
                .isEqualTo(7);
    }
}
