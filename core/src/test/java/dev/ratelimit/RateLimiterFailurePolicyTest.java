package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a {@link RateLimiter} hands out when Redis fails, under each failure policy, and how it
 * counts and reports the failure: over a fake gateway that fails on demand, so every count is exact.
 */
class RateLimiterFailurePolicyTest {
    private static final Rule TWO_PER_SECOND = Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(1));

    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();
    private final RecordingListener listener = new RecordingListener();

    private RateLimiterBuilder limiter() {
        return RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime).rule(TWO_PER_SECOND)
                .listener(listener);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void allowAdmitsADegradedRequestAndCountsNothingInRedis(Transport transport) {
        RateLimiter limiter = limiter().transport(transport).onRedisFailure(FailurePolicy.ALLOW).build();
        redis.failNext(1);

        Decision decision = limiter.tryAcquire("c");

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.degraded()).isTrue();
        assertThat(decision.remaining()).isEqualTo(2);
        assertThat(decision.retryAfter()).isZero();
        assertThat(limiter.redisFailures()).isEqualTo(1);
        RateLimiterStats stats = limiter.stats();
        assertThat(stats.redisErrors()).isEqualTo(1);
        assertThat(stats.degraded()).isEqualTo(1);
        assertThat(stats.allowed()).isEqualTo(1);
        assertThat(stats.denied()).isZero();
        assertThat(listener.failures).hasSize(1);
        assertThat(listener.allowed).containsExactly(decision);
        assertThat(listener.denied).isEmpty();

        Decision next = limiter.tryAcquire("c");
        assertThat(next.degraded()).isFalse();
        assertThat(next.remaining()).as("the degraded admission took nothing").isEqualTo(1);
        assertThat(redis.calls()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void denyRefusesADegradedRequestForOneSecondAndDoesNotCacheIt(Transport transport) {
        RateLimiter limiter = limiter().transport(transport).onRedisFailure(FailurePolicy.DENY).build();
        redis.failNext(1);

        Decision decision = limiter.tryAcquire("c");

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.degraded()).isTrue();
        assertThat(decision.remaining()).isZero();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1)).isEqualTo(RateLimiter.DEGRADED_RETRY_AFTER);
        assertThat(decision.retryAfterSeconds()).isEqualTo(1);
        assertThat(limiter.redisFailures()).isEqualTo(1);
        assertThat(limiter.stats().degraded()).isEqualTo(1);
        assertThat(limiter.stats().denied()).isEqualTo(1);
        assertThat(listener.failures).hasSize(1);
        assertThat(listener.denied).containsExactly(decision);

        Decision next = limiter.tryAcquire("c");
        assertThat(next.allowed()).as("Redis decides the very next request: no cached degraded denial").isTrue();
        assertThat(next.degraded()).isFalse();
        assertThat(redis.calls()).isEqualTo(2);
        assertThat(limiter.stats().localCacheDenials()).isZero();
    }

    @Test
    void withoutAPolicyTheFailureIsThrownAsItCame() {
        RateLimiter limiter = limiter().build();
        redis.failNext(1);

        RedisFailureException thrown = catchThrowableOfType(RedisFailureException.class, () -> limiter.tryAcquire("c"));

        assertThat(thrown).isNotNull();
        assertThat(thrown.redisAnswered()).isFalse();
        assertThat(listener.failures).containsExactly(thrown);
        assertThat(listener.allowed).isEmpty();
        assertThat(listener.denied).isEmpty();
        assertThat(limiter.redisFailures()).isEqualTo(1);
        RateLimiterStats stats = limiter.stats();
        assertThat(stats.redisErrors()).isEqualTo(1);
        assertThat(stats.allowed()).isZero();
        assertThat(stats.denied()).isZero();
        assertThat(stats.degraded()).isZero();
    }

    @Test
    void anErrorReplyIsAFailureLikeAnyOther() {
        RateLimiter limiter = limiter().onRedisFailure(FailurePolicy.ALLOW).build();
        redis.failNextWithErrorReply(1);

        Decision decision = limiter.tryAcquire("c");

        assertThat(decision.degraded()).isTrue();
        assertThat(decision.allowed()).isTrue();
        assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.redisAnswered()).isTrue());
        assertThat(limiter.redisFailures()).isEqualTo(1);
    }

    @Test
    void eachFailureIsCountedAndReportedExactlyOnce() {
        RateLimiter limiter = limiter().onRedisFailure(FailurePolicy.DENY).build();
        redis.failAll();

        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("c" + i).degraded()).isTrue();
        }
        assertThat(limiter.peek("c").degraded()).isTrue();

        assertThat(redis.calls()).isEqualTo(6);
        assertThat(limiter.redisFailures()).isEqualTo(6);
        assertThat(limiter.stats().redisErrors()).isEqualTo(6);
        assertThat(listener.failures).hasSize(6).doesNotHaveDuplicates();
        assertThat(limiter.stats().degraded()).as("a peek hands out no decision to count").isEqualTo(5);
        assertThat(listener.denied).hasSize(5);

        redis.recover();
        assertThat(limiter.tryAcquire("c").degraded()).isFalse();
        assertThat(limiter.redisFailures()).isEqualTo(6);
    }

    @Test
    void acquireDoesNotWaitOutADegradedDenial() throws InterruptedException {
        RateLimiter limiter = limiter().onRedisFailure(FailurePolicy.DENY).build();
        redis.failNext(1);

        Decision decision = limiter.acquire("c", 1, Duration.ofMinutes(1));

        assertThat(decision.degraded()).as("returned at once, not retried after a sleep").isTrue();
        assertThat(decision.allowed()).isFalse();
        assertThat(redis.calls()).isEqualTo(1);
    }

    @Test
    void aListenerThatThrowsBreaksNeitherTheDecisionNorTheOtherListeners() {
        RateLimitListener throwing = new RateLimitListener() {
            @Override
            public void onAllowed(String policyName, String key, Decision decision) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onDenied(String policyName, String key, Decision decision) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onFailure(String policyName, String key, RedisFailureException cause) {
                throw new IllegalStateException("listener bug");
            }
        };
        RecordingListener after = new RecordingListener();
        RateLimiter limiter = RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime)
                .rule(TWO_PER_SECOND).listener(throwing).listener(after).onRedisFailure(FailurePolicy.ALLOW).build();

        redis.failNext(1);
        Decision degraded = limiter.tryAcquire("c");
        Decision answered = limiter.tryAcquire("c");

        assertThat(degraded.allowed()).isTrue();
        assertThat(degraded.degraded()).isTrue();
        assertThat(answered.degraded()).isFalse();
        assertThat(after.failures).hasSize(1);
        assertThat(after.allowed).containsExactly(degraded, answered);
        assertThat(limiter.redisFailures()).isEqualTo(1);
    }

    @Test
    void withoutAPolicyAThrowingListenerDoesNotReplaceTheRedisFailure() {
        RateLimiter limiter = RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime)
                .rule(TWO_PER_SECOND).listener(new RateLimitListener() {
                    @Override
                    public void onFailure(String policyName, String key, RedisFailureException cause) {
                        throw new IllegalStateException("listener bug");
                    }
                }).listener(listener).build();
        redis.failNext(1);

        RedisFailureException thrown = catchThrowableOfType(RedisFailureException.class, () -> limiter.tryAcquire("c"));

        assertThat(thrown).isNotNull();
        assertThat(listener.failures).containsExactly(thrown);
        assertThat(limiter.redisFailures()).isEqualTo(1);
    }
}
