package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code onRedisFailure=local} against a real Redis that is killed and started again: two nodes (two
 * limiters, each with its own client) each admit exactly {@code localLimit} while Redis is down, by
 * the policy's own algorithm, and once Redis is back it alone decides: the nodes' local state is
 * gone and the limit is the shared one again.
 */
class LocalFallbackIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TIMEOUT = Duration.ofMillis(300);

    @AfterEach
    void redisIsBack() {
        if (!redis.isAnswering()) {
            redis.start();
        }
    }

    private static RedisStore node() {
        return RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(TIMEOUT).poolSize(4).build());
    }

    private static RateLimiter limiter(RedisStore store, Rule rule, long localLimit) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("local").rule(rule)
                .onRedisFailure(FailurePolicy.LOCAL).localLimit(localLimit).build();
    }

    private static List<Decision> take(RateLimiter limiter, String key, int count) {
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            decisions.add(limiter.tryAcquire(key));
        }
        return decisions;
    }

    private static long admitted(List<Decision> decisions) {
        return decisions.stream().filter(Decision::allowed).count();
    }

    /** Polls (with fresh keys) until Redis decides this limiter's requests again: the breaker's probe went through. */
    private static void untilRedisDecides(RateLimiter limiter) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (limiter.tryAcquire("probe-" + System.nanoTime()).degraded()) {
            assertThat(System.nanoTime()).as("Redis decides again within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void withRedisDownTwoNodesEachAdmitExactlyTheLocalLimitThenRedisAloneDecidesAgain() throws Exception {
        Rule tenPerMinute = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1));
        try (RedisStore storeA = node(); RedisStore storeB = node()) {
            RateLimiter nodeA = limiter(storeA, tenPerMinute, 3);
            RateLimiter nodeB = limiter(storeB, tenPerMinute, 3);
            assertThat(admitted(take(nodeA, "c", 4))).as("Redis decides first").isEqualTo(4);

            redis.stop();

            List<Decision> onA = take(nodeA, "c", 8);
            List<Decision> onB = take(nodeB, "c", 8);
            assertThat(onA).extracting(Decision::allowed)
                    .containsExactly(true, true, true, false, false, false, false, false);
            assertThat(admitted(onB)).isEqualTo(3);
            for (Decision decision : onA) {
                assertThat(decision.local()).isTrue();
                assertThat(decision.limit()).isEqualTo(3);
            }
            assertThat(onA).extracting(Decision::remaining).containsExactly(2L, 1L, 0L, 0L, 0L, 0L, 0L, 0L);
            Decision denied = onA.get(3);
            assertThat(denied.retryAfter()).as("the first local admission leaves the local window")
                    .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
            assertThat(admitted(take(nodeA, "other", 5))).as("each client alone").isEqualTo(3);
            assertThat(nodeA.localKeys()).isEqualTo(2);

            redis.start();
            untilRedisDecides(nodeA);
            untilRedisDecides(nodeB);

            assertThat(nodeA.localKeys()).as("the local state went with Redis's first answer").isZero();
            assertThat(nodeB.localKeys()).isZero();
            // The restarted Redis lost its data: the client starts afresh with the shared limit of 10,
            // which the nodes' exhausted local windows would have refused.
            List<Decision> after = new ArrayList<>();
            after.addAll(take(nodeA, "c", 6));
            after.addAll(take(nodeB, "c", 6));
            assertThat(after).noneMatch(Decision::degraded);
            assertThat(admitted(after)).isEqualTo(10);
            assertThat(after.get(0).limit()).isEqualTo(10);
            assertThat(after.get(0).remaining()).isEqualTo(9);
        }
    }

    @Test
    void aDeadRedisFromTheStartIsLimitedLocallyByEveryAlgorithm() {
        try (RedisStore dead = RedisStore.connect(RedisSettings.builder("redis://127.0.0.1:1").timeout(TIMEOUT)
                .build())) {
            for (Algorithm algorithm : Algorithm.values()) {
                if (algorithm.holdsLeases()) {
                    continue; // onRedisFailure=local refuses concurrency at build (ConcurrencyIT)
                }
                RateLimiter limiter = RateLimiter.builder(dead).policyName("dead-" + algorithm)
                        .rule(Rule.of(algorithm, 50, Duration.ofMinutes(1))).onRedisFailure(FailurePolicy.LOCAL)
                        .localLimit(4).build();
                List<Decision> decisions = take(limiter, "c", 7);
                assertThat(admitted(decisions)).as(algorithm.configName()).isEqualTo(4);
                assertThat(decisions).allMatch(Decision::local);
                assertThat(limiter.redisFailures()).isEqualTo(7);
            }
        }
    }
}
