package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Delayed admissions ({@link RateLimiter#tryAcquire(String, Duration)}) when Redis is down or
 * restarts. Down, a call that could have waited is answered at once as {@code onRedisFailure} says
 * (none set: a {@link RedisFailureException}), never as a delayed admission: no turn was reserved,
 * so none may be promised. A restart (the server loses its data) between a delayed admission and its
 * turn costs at most the first decision after it, answered by the policy; then the limiter decides
 * exactly on the new, empty state, and (window algorithms) the old admission's refund gives nothing
 * to it. Each test has a store of its own, so no breaker state passes between them.
 */
class DelayedAdmissionOutageIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration MAX_DELAY = Duration.ofSeconds(30);
    private static final int LIMIT = 2;

    private final List<RedisStore> stores = new ArrayList<>();

    @AfterEach
    void closeStoresAndStartRedis() {
        stores.forEach(RedisStore::close);
        if (!redis.isAnswering()) {
            redis.start();
        }
    }

    private RateLimiterBuilder limiter(String policy, Algorithm algorithm) {
        RedisStore store = RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(RedisStoreExtension.TIMEOUT)
                .build());
        stores.add(store);
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                .rule(Rule.of(algorithm, LIMIT, Duration.ofSeconds(10)));
    }

    /** Takes the limit at once, then one more for its turn: the state a delayed call meets. */
    private static Decision fillThenDelayOne(RateLimiter limiter, String key) {
        for (int i = 0; i < LIMIT; i++) {
            Decision now = limiter.tryAcquire(key, MAX_DELAY);
            assertThat(now.allowed()).as("admission %d of %d", i + 1, LIMIT).isTrue();
            assertThat(now.delayed()).as("admission %d of %d, at once", i + 1, LIMIT).isFalse();
        }
        Decision delayed = limiter.tryAcquire(key, MAX_DELAY);
        assertThat(delayed.allowed()).as("over the limit, admitted for its turn").isTrue();
        assertThat(delayed.delayed()).as("over the limit, admitted for its turn").isTrue();
        assertThat(delayed.degraded()).isFalse();
        assertThat(delayed.delay()).isPositive().isLessThanOrEqualTo(MAX_DELAY);
        return delayed;
    }

    @Test
    void downWithoutAFailurePolicyADelayingCallThrowsTheFailure() {
        RateLimiter limiter = limiter("none", Algorithm.GCRA).build();
        fillThenDelayOne(limiter, "client");
        redis.stop();
        for (int i = 1; i <= 5; i++) {
            String other = "other-" + i;
            assertThatThrownBy(() -> limiter.tryAcquire("client", MAX_DELAY)).as("call %d", i)
                    .isInstanceOf(RedisFailureException.class);
            assertThatThrownBy(() -> limiter.tryAcquire(other, MAX_DELAY)).as("a new client, call %d", i)
                    .isInstanceOf(RedisFailureException.class);
        }
    }

    @ParameterizedTest(name = "onRedisFailure={0}")
    @EnumSource(FailurePolicy.class)
    void downADelayingCallIsAnsweredAtOnceAsTheFailurePolicySays(FailurePolicy policy) {
        RateLimiterBuilder builder = limiter("down-" + policy, Algorithm.GCRA).onRedisFailure(policy);
        if (policy == FailurePolicy.LOCAL) {
            builder.localLimit(1);
        }
        RateLimiter limiter = builder.build();
        fillThenDelayOne(limiter, "client");
        redis.stop();

        List<Decision> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(limiter.tryAcquire("client", MAX_DELAY));
        }
        assertThat(answers).as("made without Redis, none promised a turn").allSatisfy(answer -> {
            assertThat(answer.degraded()).isTrue();
            assertThat(answer.delayed()).isFalse();
            assertThat(answer.delay()).isZero();
        });
        long allowed = answers.stream().filter(Decision::allowed).count();
        switch (policy) {
            case ALLOW:
                assertThat(allowed).as("allow lets every request through").isEqualTo(6);
                break;
            case DENY:
                assertThat(allowed).as("deny refuses every request").isZero();
                break;
            default:
                assertThat(answers).allSatisfy(answer -> assertThat(answer.local()).isTrue());
                assertThat(allowed).as("local admits localLimit on this node, the rest are denied").isEqualTo(1);
        }
    }

    /** A limiter whose client holds a delayed admission when Redis restarts; that admission. */
    private Decision restartAfterADelayedAdmission(RateLimiter limiter) {
        Decision beforeRestart = fillThenDelayOne(limiter, "client");
        redis.stop();
        redis.start();
        // A quick restart may cost the first decision, made on a pooled connection from before
        // (RedisRestartContract): deny answers it, never an admission. The stale connections go with it.
        Decision first = limiter.tryAcquire("first-after-restart", MAX_DELAY);
        assertThat(first.allowed()).as("the first decision, a new client's: %s", first).isEqualTo(!first.degraded());
        assertThat(limiter.stats().degraded()).as("decisions made without Redis").isLessThanOrEqualTo(1);
        return beforeRestart;
    }

    private RateLimiter restarting(String policy, Algorithm algorithm) {
        return limiter(policy + "-" + algorithm.configName(), algorithm).onRedisFailure(FailurePolicy.DENY)
                .localDenyCache(false).build();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"GCRA", "SLIDING_LOG", "TOKEN_BUCKET", "FIXED_WINDOW"})
    void aRestartBeforeADelayedAdmissionsTurnLeavesTheLimiterDecidingExactly(Algorithm algorithm) {
        RateLimiter limiter = restarting("restart", algorithm);
        restartAfterADelayedAdmission(limiter);
        long degraded = limiter.stats().degraded();

        // The restarted Redis has lost every key: the limit is there to take again at once, then one
        // more for its turn, exactly as on a first visit.
        fillThenDelayOne(limiter, "client");
        assertThat(limiter.stats().degraded()).as("decisions made without Redis since the first").isEqualTo(degraded);
    }

    /**
     * The request admitted before the restart ends before its turn, and its permits are given back
     * (the filter does so for a request the container ends while it waits): they went with the old
     * state, and the new one is left as it is. Only the window algorithms can tell: gcra and
     * token-bucket keep one TAT or token count, which a refund moves back as the state holds it now
     * (refund.lua), whichever admission it came from.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "FIXED_WINDOW"})
    void aRefundOfADelayedAdmissionFromBeforeTheRestartLeavesTheNewStateAlone(Algorithm algorithm) {
        RateLimiter limiter = restarting("refund", algorithm);
        Decision beforeRestart = restartAfterADelayedAdmission(limiter);
        fillThenDelayOne(limiter, "client");
        String key = limiter.redisKeys("client").get(0);
        byte[] state = redis.client().dump(key);

        assertThat(limiter.refund("client", beforeRestart)).as("given back").isFalse();
        assertThat(redis.client().dump(key)).as("the new state").isEqualTo(state);
    }
}
