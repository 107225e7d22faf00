package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The local deny cache and the failure policy, against a real Redis and a dead one. */
class RateLimiterResilienceIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final RedisStoreExtension store = new RedisStoreExtension(redis);

    private static long scriptCalls() {
        return redis.calls("evalsha");
    }

    @Test
    void aFloodFromADeniedClientCostsAlmostNoRedisCalls() throws Exception {
        RateLimiter limiter = store.limiter("flood")
                .rule(Rule.of(Algorithm.SLIDING_LOG, 2, Duration.ofMillis(1500))).build();
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");
        long before = scriptCalls();

        Decision first = limiter.tryAcquire("c");
        long deniedAt = System.nanoTime();
        int denied = 0;
        for (int i = 0; i < 10_000; i++) {
            if (!limiter.tryAcquire("c").allowed()) {
                denied++;
            }
        }

        assertThat(first.allowed()).isFalse();
        assertThat(denied).isEqualTo(10_000);
        assertThat(scriptCalls() - before).as("Redis calls for 10,001 denied requests").isLessThanOrEqualTo(3);

        long wait = deniedAt + first.retryAfter().toNanos() - System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(Math.max(0, wait));
        assertThat(limiter.tryAcquire("c").allowed()).as("admitted as soon as Redis would admit").isTrue();
    }

    @Test
    void aResetForgetsRememberedDenials() {
        RateLimiter limiter = store.limiter("reset").rule(Rule.of(Algorithm.GCRA, 1, Duration.ofHours(1))).build();
        limiter.tryAcquire("c");
        assertThat(limiter.tryAcquire("c").allowed()).isFalse();
        limiter.reset("c");
        assertThat(limiter.tryAcquire("c").allowed()).isTrue();
    }

    @Test
    void withoutRedisTheFailurePolicyDecidesAndFailuresAreCounted() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofSeconds(1));
        try (RedisStore dead = RedisStore.connect("redis://127.0.0.1:1")) {
            RateLimiter allowing = RateLimiter.builder(dead).rule(rule).onRedisFailure(FailurePolicy.ALLOW).build();
            Decision allowed = allowing.tryAcquire("c");
            assertThat(allowed.allowed()).isTrue();
            assertThat(allowed.degraded()).isTrue();

            RateLimiter denying = RateLimiter.builder(dead).rule(rule).onRedisFailure(FailurePolicy.DENY).build();
            Decision denied = denying.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.degraded()).isTrue();
            assertThat(denied.retryAfterSeconds()).isEqualTo(1);
            assertThat(denying.tryAcquire("c").degraded()).as("degraded denials are not cached").isTrue();
            assertThat(denying.redisFailures()).isEqualTo(2);

            RateLimiter throwing = RateLimiter.builder(dead).rule(rule).build();
            assertThatThrownBy(() -> throwing.tryAcquire("c")).isInstanceOf(RedisFailureException.class);
            assertThat(throwing.redisFailures()).isEqualTo(1);
        }
    }
}
