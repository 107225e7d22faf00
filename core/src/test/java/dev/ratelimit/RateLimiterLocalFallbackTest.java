package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.redis.CircuitBreaker;
import dev.ratelimit.internal.redis.CircuitBreakingGateway;
import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code onRedisFailure=local} in a {@link RateLimiter}, over the fake gateway behind a circuit
 * breaker (as {@code RedisStore.connect} builds it) on one manual clock: while Redis fails, or the
 * breaker is open, the node limits alone at {@code localLimit}; the first answer from Redis drops
 * that state.
 */
class RateLimiterLocalFallbackTest {
    private static final Rule FIVE_PER_SECOND = Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(1));

    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();
    private final RedisStore store = TestStores.over(
            new CircuitBreakingGateway(redis, new CircuitBreaker(3, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ZERO, redis::nanoTime)));
    private final RecordingListener listener = new RecordingListener();

    private RateLimiterBuilder limiter() {
        return RateLimiter.builder(store).clock(redis::nanoTime).rule(FIVE_PER_SECOND).listener(listener)
                .onRedisFailure(FailurePolicy.LOCAL);
    }

    private static List<Decision> take(RateLimiter limiter, String key, int count) {
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            decisions.add(limiter.tryAcquire(key));
        }
        return decisions;
    }

    @Test
    void whileRedisFailsTheNodeAdmitsExactlyItsLocalLimitThroughAnOpenBreakerToo() {
        RateLimiter limiter = limiter().localLimit(3).build();
        redis.failAll();

        List<Decision> decisions = take(limiter, "c", 6);

        assertThat(limiter.stats().circuitBreakerState()).as("the breaker opened on the way").isEqualTo("OPEN");
        assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, true, false, false, false);
        assertThat(decisions).extracting(Decision::remaining).containsExactly(2L, 1L, 0L, 0L, 0L, 0L);
        assertThat(decisions).allSatisfy(decision -> {
            assertThat(decision.local()).isTrue();
            assertThat(decision.degraded()).isTrue();
            assertThat(decision.limit()).isEqualTo(3);
        });
        assertThat(decisions.get(3).retryAfter()).as("the local window started with the first request")
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(limiter.localRules()).containsExactly(Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(1)));
        assertThat(limiter.localKeys()).isEqualTo(1);
        RateLimiterStats stats = limiter.stats();
        assertThat(stats.allowed()).isEqualTo(3);
        assertThat(stats.denied()).isEqualTo(3);
        assertThat(stats.degraded()).isEqualTo(6);
        assertThat(stats.localCacheDenials()).as("local denials are not remembered as Redis's").isZero();
        assertThat(listener.denied).hasSize(3).allMatch(Decision::local);
        assertThat(redis.calls()).as("three failures opened the breaker; then no call").isEqualTo(3);
    }

    @Test
    void theFirstAnswerFromRedisDropsTheLocalStateAndRedisAloneDecides() {
        RateLimiter limiter = limiter().localLimit(2).build();
        redis.failAll();
        assertThat(take(limiter, "c", 3)).extracting(Decision::allowed).containsExactly(true, true, false);
        assertThat(take(limiter, "d", 1)).extracting(Decision::allowed).containsExactly(true);
        assertThat(limiter.localKeys()).isEqualTo(2);

        redis.recover();
        redis.advance(Duration.ofSeconds(5));

        Decision first = limiter.tryAcquire("c");
        assertThat(first.degraded()).isFalse();
        assertThat(first.local()).isFalse();
        assertThat(first.remaining()).as("nothing the node admitted alone was counted in Redis").isEqualTo(4);
        assertThat(limiter.localKeys()).as("dropped on the first answer").isZero();
        assertThat(take(limiter, "c", 5)).extracting(Decision::allowed)
                .containsExactly(true, true, true, true, false);

        redis.advance(Duration.ofSeconds(2));
        redis.failAll();
        assertThat(take(limiter, "c", 3)).as("a new outage starts from a clean local state")
                .extracting(Decision::allowed).containsExactly(true, true, false);
    }

    @Test
    void theLocalLimitIsTheRulesLimitUnlessSetAndPeeksAndResetsReachTheLocalState() {
        RateLimiter limiter = limiter().build();
        redis.failAll();

        assertThat(limiter.peek("c").remaining()).isEqualTo(5);
        assertThat(limiter.localKeys()).as("a peek stores nothing").isZero();
        assertThat(take(limiter, "c", 6)).filteredOn(Decision::allowed).hasSize(5);
        assertThat(limiter.peek("c").allowed()).isFalse();

        assertThatThrownBy(() -> limiter.reset("c")).isInstanceOf(RedisFailureException.class);
        assertThat(limiter.localKeys()).as("the reset reached the local state before Redis failed it").isZero();
        assertThat(limiter.tryAcquire("c").allowed()).isTrue();
    }

    @Test
    void callerPermitsAreTakenLocallyTooAndTooManyAreDeniedForASecond() {
        RateLimiter limiter = limiter().localLimit(3).build();
        redis.failAll();

        assertThat(limiter.tryAcquire("c", 2).allowed()).isTrue();
        Decision tooMany = limiter.tryAcquire("c", 4);
        assertThat(tooMany.allowed()).isFalse();
        assertThat(tooMany.local()).isTrue();
        assertThat(tooMany.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("c", 1).allowed()).isTrue();
        assertThat(limiter.tryAcquire("c", 1).allowed()).isFalse();
    }

    @Test
    void allowAndDenyAreAsBefore() {
        RateLimiter allowing = limiter().onRedisFailure(FailurePolicy.ALLOW).build();
        RateLimiter denying = limiter().onRedisFailure(FailurePolicy.DENY).build();
        redis.failAll();

        Decision allowed = allowing.tryAcquire("c");
        Decision denied = denying.tryAcquire("c");

        assertThat(allowed.local()).isFalse();
        assertThat(allowed).hasToString("allowed (degraded: Redis failed) by 5/1s: remaining 5, reset after 0ms");
        assertThat(denied.local()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(RateLimiter.DEGRADED_RETRY_AFTER);
        assertThat(allowing.localRules()).isNull();
        assertThat(allowing.localKeys()).isZero();
    }

    @Test
    void theBuilderRefusesABadLocalLimitAndOneWithoutTheLocalPolicy() {
        assertThatThrownBy(() -> limiter().localLimit(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("localLimit must be a whole number between 1 and 1125899906842624, but was 0");
        assertThatThrownBy(() -> limiter().onRedisFailure(FailurePolicy.ALLOW).localLimit(3).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("localLimit applies only with onRedisFailure(FailurePolicy.LOCAL), but was 3 with "
                        + "onRedisFailure allow");
        assertThatThrownBy(() -> limiter().onRedisFailure(null).localLimit(3).build())
                .hasMessageEndingWith("but was 3 with onRedisFailure null");
    }
}
