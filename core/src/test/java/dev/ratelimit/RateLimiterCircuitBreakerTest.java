package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.redis.CircuitBreaker;
import dev.ratelimit.internal.redis.CircuitBreakingGateway;
import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A limiter over {@link CircuitBreakingGateway} around the fake, as {@code RedisStore.connect}
 * builds it, with the fake's manual clock driving breaker and limiter: which calls reach Redis
 * while the breaker is open, half-open and closed, and what the limiter hands out meanwhile. The
 * breaker's own state machine is CircuitBreakerTest's.
 */
class RateLimiterCircuitBreakerTest {
    private static final int THRESHOLD = 3;
    private static final Duration COOL_DOWN = Duration.ofSeconds(5);
    private static final Rule TWO_PER_SECOND = Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(1));

    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();
    private final RedisStore store = TestStores.over(
            new CircuitBreakingGateway(redis, new CircuitBreaker(THRESHOLD, COOL_DOWN, COOL_DOWN, Duration.ZERO, redis::nanoTime)));
    private final RecordingListener listener = new RecordingListener();

    private RateLimiter limiter(FailurePolicy policy, Transport transport) {
        return RateLimiter.builder(store).clock(redis::nanoTime).rule(TWO_PER_SECOND).transport(transport)
                .onRedisFailure(policy).listener(listener).build();
    }

    private RateLimiter limiter(FailurePolicy policy) {
        return limiter(policy, Transport.LUA);
    }

    private void open(RateLimiter limiter) {
        redis.failAll();
        for (int i = 0; i < THRESHOLD; i++) {
            assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
            assertThat(limiter.tryAcquire("c").degraded()).isTrue();
        }
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("OPEN");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void onceOpenNoCallReachesRedisUntilTheCoolDownThenOneProbeClosesIt(Transport transport) {
        RateLimiter limiter = limiter(FailurePolicy.DENY, transport);
        open(limiter);
        assertThat(redis.calls()).isEqualTo(THRESHOLD);

        for (int i = 0; i < 10; i++) {
            Decision decision = limiter.tryAcquire("c" + i);
            assertThat(decision.degraded()).isTrue();
            assertThat(decision.allowed()).isFalse();
            assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        }
        assertThatThrownBy(() -> limiter.reset("c")).isInstanceOf(RedisFailureException.class);
        assertThat(redis.calls()).as("the breaker answers alone").isEqualTo(THRESHOLD);
        assertThat(limiter.redisFailures()).as("rejected calls are failures to the limiter").isEqualTo(13);
        assertThat(listener.failures).hasSize(13);
        assertThat(listener.failures.get(THRESHOLD).getMessage()).contains("circuit open");
        assertThat(listener.failures.get(THRESHOLD).redisAnswered()).isFalse();

        redis.advance(COOL_DOWN.minusNanos(1));
        redis.recover();
        assertThat(limiter.tryAcquire("c").degraded()).isTrue();
        assertThat(redis.calls()).as("one nanosecond before the cool-down ends").isEqualTo(THRESHOLD);

        redis.advance(Duration.ofNanos(1));
        Decision probe = limiter.tryAcquire("c");

        assertThat(probe.degraded()).isFalse();
        assertThat(probe.allowed()).isTrue();
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 1);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
        assertThat(limiter.tryAcquire("c").degraded()).isFalse();
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 2);
    }

    @Test
    void whileTheProbeIsOutEveryOtherRequestIsDecidedByThePolicy() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        open(limiter);
        redis.advance(COOL_DOWN);
        redis.recover();
        AtomicReference<Decision> duringProbe = new AtomicReference<>();
        AtomicReference<String> stateDuringProbe = new AtomicReference<>();
        redis.duringNextCall(() -> {
            stateDuringProbe.set(limiter.stats().circuitBreakerState());
            duringProbe.set(limiter.tryAcquire("other"));
        });

        Decision probe = limiter.tryAcquire("c");

        assertThat(stateDuringProbe).hasValue("HALF_OPEN");
        assertThat(duringProbe.get().degraded()).isTrue();
        assertThat(duringProbe.get().allowed()).isTrue();
        assertThat(probe.degraded()).isFalse();
        assertThat(redis.calls()).as("the probe alone reached Redis").isEqualTo(THRESHOLD + 1);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
    }

    @Test
    void aFailedProbeOpensItForAnotherCoolDown() {
        RateLimiter limiter = limiter(FailurePolicy.DENY);
        open(limiter);
        redis.advance(COOL_DOWN);

        assertThat(limiter.tryAcquire("c").degraded()).isTrue();

        assertThat(redis.calls()).isEqualTo(THRESHOLD + 1);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("OPEN");
        limiter.tryAcquire("c");
        redis.advance(COOL_DOWN.minusNanos(1));
        limiter.tryAcquire("c");
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 1);
        redis.advance(Duration.ofNanos(1));
        limiter.tryAcquire("c");
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 2);
    }

    @Test
    void aProbeThatThrowsSomethingElseDoesNotLeaveItHalfOpen() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        open(limiter);
        redis.advance(COOL_DOWN);
        redis.recover();
        redis.duringNextCall(() -> {
            throw new IllegalStateException("a bug in the probe's path");
        });

        assertThatThrownBy(() -> limiter.tryAcquire("c")).isInstanceOf(IllegalStateException.class);

        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("HALF_OPEN");
        Decision next = limiter.tryAcquire("c");
        assertThat(next.degraded()).as("the next call is the probe, without another cool-down").isFalse();
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 2);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
    }

    @Test
    void errorRepliesNeverOpenIt() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        redis.failNextWithErrorReply(10);

        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire("c").degraded()).as("the policy still decides").isTrue();
        }

        assertThat(redis.calls()).as("every call reached Redis").isEqualTo(10);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
        assertThat(limiter.redisFailures()).isEqualTo(10);
        assertThat(limiter.tryAcquire("c").degraded()).isFalse();
    }

    @Test
    void anErrorReplyBetweenUnreachableFailuresStartsTheCountAgain() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        redis.failNext(THRESHOLD - 1);
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");
        redis.failNextWithErrorReply(1);
        limiter.tryAcquire("c");
        redis.failNext(THRESHOLD - 1);
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");

        redis.failNext(1);
        limiter.tryAcquire("c");

        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("OPEN");
        assertThat(redis.calls()).isEqualTo(6);
        assertThat(limiter.redisFailures()).isEqualTo(6);
    }

    @Test
    void anErrorReplyToTheProbeClosesIt() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        open(limiter);
        redis.advance(COOL_DOWN);
        redis.failNextWithErrorReply(1);

        assertThat(limiter.tryAcquire("c").degraded()).isTrue();

        assertThat(limiter.stats().circuitBreakerState()).as("Redis answered: it is there").isEqualTo("CLOSED");
        assertThat(limiter.tryAcquire("c").degraded()).isFalse();
        assertThat(redis.calls()).isEqualTo(THRESHOLD + 2);
    }

    @Test
    void withoutAPolicyAnOpenBreakerThrowsAtOnce() {
        RateLimiter limiter = RateLimiter.builder(store).clock(redis::nanoTime).rule(TWO_PER_SECOND).build();
        redis.failAll();
        for (int i = 0; i < THRESHOLD; i++) {
            assertThatThrownBy(() -> limiter.tryAcquire("c")).isInstanceOf(RedisFailureException.class);
        }

        assertThatThrownBy(() -> limiter.tryAcquire("c")).isInstanceOf(RedisFailureException.class)
                .hasMessageContaining("circuit open");

        assertThat(redis.calls()).isEqualTo(THRESHOLD);
        assertThat(limiter.redisFailures()).isEqualTo(THRESHOLD + 1);
    }

    @Test
    void aCachedDenialCostsTheBreakerNothing() {
        RateLimiter limiter = limiter(FailurePolicy.ALLOW);
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");
        assertThat(limiter.tryAcquire("c").allowed()).isFalse();
        redis.failAll();

        for (int i = 0; i < 2 * THRESHOLD; i++) {
            assertThat(limiter.tryAcquire("c").degraded()).as("answered by the local deny cache").isFalse();
        }

        assertThat(redis.calls()).isEqualTo(3);
        assertThat(limiter.stats().circuitBreakerState()).isEqualTo("CLOSED");
        assertThat(limiter.redisFailures()).isZero();
    }
}
