package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The penalty box across a restart of a Redis that keeps nothing on disk (the test server runs
 * without persistence): the box is gone with the rest of the client's state, as after a reset, and
 * the limiter neither fails nor forgets how to box. The node whose deny cache holds the box's answer
 * goes on refusing until it next reads the overrides (DenyCacheRestartIT: then it forgets, as after
 * a reset made elsewhere); the other node decides on what Redis now holds. A Redis that persists keeps the box with its TTL.
 */
class PenaltyBoxRestartIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration PENALTY = Duration.ofMinutes(10);

    /** The node's clock: the one that caches stands still, so that its overrides read (every 2 s) waits. */
    private final java.util.concurrent.atomic.AtomicLong cachedClock = new java.util.concurrent.atomic.AtomicLong();

    private RateLimiter node(RedisStore store, boolean denyCache) {
        RateLimiterBuilder builder = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("boxed-restart")
                .localDenyCache(denyCache).onRedisFailure(FailurePolicy.DENY)
                .rule(Rule.builder(Algorithm.GCRA, 3, Duration.ofSeconds(30)).penalty(PENALTY).build());
        return (denyCache ? builder.clock(cachedClock::get) : builder).build();
    }

    /** The client's next decision Redis made: one that met a stale connection after the restart is retried. */
    private static Decision decided(RateLimiter limiter, String client) {
        Decision decision = limiter.tryAcquire(client);
        for (int tries = 0; decision.degraded() && tries < 5; tries++) {
            decision = limiter.tryAcquire(client);
        }
        assertThat(decision.degraded()).as("Redis decides again after the restart").isFalse();
        return decision;
    }

    @Test
    void aRestartWithoutPersistenceForgetsTheBoxAndTheNextOffenceBoxesAgain() {
        try (RedisStore storeOne = RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(2))
                        .build());
                RedisStore storeTwo = RedisStore.connect(RedisSettings.builder(redis.uri())
                        .timeout(Duration.ofSeconds(2)).build())) {
            RateLimiter cached = node(storeOne, true);
            RateLimiter plain = node(storeTwo, false);
            for (int i = 0; i < 3; i++) {
                assertThat(plain.tryAcquire("client").allowed()).isTrue();
            }
            assertThat(plain.tryAcquire("client").penalized()).isTrue();
            assertThat(cached.tryAcquire("client").penalized()).as("the other node sees the box and caches it")
                    .isTrue();

            redis.stop();
            Decision whileDown = plain.tryAcquire("client");
            assertThat(whileDown.allowed()).as("onRedisFailure=deny while Redis is down").isFalse();
            assertThat(whileDown.degraded()).isTrue();
            redis.start();

            assertThat(cached.tryAcquire("client").penalized())
                    .as("the deny cache keeps the box's answer until its node next reads the overrides").isTrue();
            Decision afterRestart = decided(plain, "client");
            assertThat(afterRestart.allowed()).as("Redis forgot the box with the client's state").isTrue();
            assertThat(afterRestart.remaining()).isEqualTo(2);
            assertThat(decided(plain, "client").allowed()).isTrue();
            assertThat(decided(plain, "client").allowed()).isTrue();
            Decision boxedAgain = decided(plain, "client");
            assertThat(boxedAgain.penalized()).as("over the limit again: boxed again").isTrue();
            assertThat(boxedAgain.retryAfter()).isEqualTo(PENALTY);
            String box = RedisKeys.penaltyBox(RedisKeys.key(redis.keyPrefix(), "boxed-restart", "client"));
            assertThat(redis.client().pttl(box)).as("the new box has the penalty as its TTL")
                    .isBetween(PENALTY.toMillis() - 2000, PENALTY.toMillis());
            assertThat(decided(cached, "another").allowed()).as("the caching node decides others on Redis").isTrue();
        }
    }
}
