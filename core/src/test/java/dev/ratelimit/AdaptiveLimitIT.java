package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The limit follows an injected load, recomputed at most once per second, within its bounds. */
class AdaptiveLimitIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private volatile double cpu = 0.10;

    private void advanceSeconds(long seconds) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    private int admitted(RateLimiter limiter, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void theLimitFollowsTheLoadWithinItsBounds() {
        AdaptiveLimit adaptive = AdaptiveLimit.floor(0.5).loadSource(() -> cpu);
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("adaptive")
                    .localDenyCache(false).adaptive(adaptive).clock(now::get)
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1))).build();

            cpu = 0.99;
            assertThat(admitted(limiter, "busy", 20)).as("at the floor: half the limit").isEqualTo(5);
            assertThat(limiter.effectiveRules().get(0).limit()).isEqualTo(5);
            assertThat(limiter.tryAcquire("busy").limit()).as("headers tell the effective limit").isEqualTo(5);

            cpu = 0.10;
            assertThat(admitted(limiter, "calm", 20)).as("not recomputed within the second").isEqualTo(5);

            advanceSeconds(1);
            assertThat(admitted(limiter, "calm", 20)).as("back to the full limit: 5 more").isEqualTo(5);
            assertThat(limiter.effectiveRules().get(0).limit()).isEqualTo(10);
            assertThat(limiter.adaptiveFactor()).isEqualTo(1.0);
        }
    }

    @Test
    void slowAdmittedRequestsLowerTheLimit() {
        AdaptiveLimit adaptive = AdaptiveLimit.floor(0.2).latencyTarget(Duration.ofMillis(100)).loadSource(() -> 0.1);
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("slow")
                    .adaptive(adaptive).clock(now::get)
                    .rule(Rule.of(Algorithm.GCRA, 100, Duration.ofMinutes(1))).build();
            for (int i = 0; i < 100; i++) {
                limiter.recordAdmittedLatency(Duration.ofMillis(400));
            }
            limiter.tryAcquire("c");
            assertThat(limiter.adaptiveFactor()).as("4 x the target").isEqualTo(0.25);
            assertThat(limiter.effectiveRules().get(0).limit()).isEqualTo(25);
            assertThat(limiter.effectiveRules().get(0).burst()).isEqualTo(25);
        }
    }

    @Test
    void aCostAboveTheScaledCapacityIsCappedNotImpossible() {
        AdaptiveLimit adaptive = AdaptiveLimit.floor(0.3).loadSource(() -> 0.99);
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("costly")
                    .localDenyCache(false).adaptive(adaptive).clock(now::get)
                    .rule(Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)).cost(4).build()).build();

            Decision first = limiter.tryAcquire("c");

            assertThat(limiter.effectiveRules().get(0).limit()).isEqualTo(3);
            assertThat(limiter.effectiveRules().get(0).cost()).isEqualTo(3);
            assertThat(first.allowed()).as("the cost follows the scaled rule").isTrue();
            assertThat(first.remaining()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "SLIDING_WINDOW", "GCRA"})
    void aRequestLargerThanTheScaledLimitIsDeniedUntilTheLimitsCanRise(Algorithm algorithm) {
        AdaptiveLimit adaptive = AdaptiveLimit.floor(0.3).loadSource(() -> cpu);
        cpu = 0.99;
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix())
                    .policyName("oversized-" + algorithm).localDenyCache(false).adaptive(adaptive).clock(now::get)
                    .rule(Rule.of(algorithm, 10, Duration.ofMinutes(1))).build();
            String redisKey = limiter.redisKeys("c").get(0);

            Decision fresh = limiter.tryAcquire("c", 5);
            assertThat(limiter.effectiveRules().get(0).capacity()).isEqualTo(3);
            assertThat(fresh.allowed()).as("5 permits never fit the scaled limit of 3").isFalse();
            assertThat(fresh.degraded()).as("a decision, not a failure").isFalse();
            assertThat(fresh.limit()).isEqualTo(3);
            assertThat(fresh.remaining()).isEqualTo(3);
            assertThat(fresh.retryAfter()).as("the limits cannot rise before the next adaptation")
                    .isEqualTo(Duration.ofSeconds(1));
            assertThat(redis.client().exists(redisKey)).as("a denial writes nothing").isFalse();

            assertThat(limiter.tryAcquire("c", 2).allowed()).isTrue();
            Decision busy = limiter.tryAcquire("c", 5);
            assertThat(busy.allowed()).isFalse();
            assertThat(busy.remaining()).isEqualTo(1);
            assertThat(busy.retryAfter())
                    .as("then the client's state is clear (two windows at most), and it fits once the limits are back")
                    .isEqualTo(busy.resetAfter()).isGreaterThan(Duration.ofSeconds(1))
                    .isLessThanOrEqualTo(Duration.ofMinutes(2));

            cpu = 0.10;
            advanceSeconds(1);
            assertThat(limiter.tryAcquire("d", 5).allowed()).as("once the limits are back, it fits").isTrue();
        }
    }

    @Test
    void bucketsWhoseTokensDependOnTheRateAreRefused() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            assertThatThrownBy(() -> RateLimiter.builder(store).adaptive(AdaptiveLimit.floor(0.5))
                    .rule(Rule.of(Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1))).build())
                    .hasMessage("adaptive limits apply to fixed-window, sliding-log, sliding-window and gcra, but rule "
                            + "10/1m uses token-bucket (its stored tokens are counted in units of the configured rate)");
        }
    }
}
