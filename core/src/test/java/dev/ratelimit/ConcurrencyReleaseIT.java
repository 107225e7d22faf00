package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release Redis cannot take: it never throws, and the lease it could not give back stops
 * counting once the rule's window (the lease timeout) has passed, which Redis' own state shows.
 */
class ConcurrencyReleaseIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aFailedReleaseDoesNotThrowAndTheLeaseExpiresAfterItsWindow() throws Exception {
        Rule oneInFlight = Rule.of(Algorithm.CONCURRENCY, 1, Duration.ofSeconds(2));
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port());
                RedisStore store = RedisStore.connect(RedisSettings.builder(proxy.redisUri())
                        .timeout(Duration.ofMillis(200)).build())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("release")
                    .onRedisFailure(FailurePolicy.DENY).rule(oneInFlight).build();
            Decision held = limiter.tryAcquire("c");
            assertThat(held.holdsLease()).isTrue();
            String key = limiter.redisKeys("c").get(0);

            proxy.reset();
            limiter.release(held); // must not throw
            proxy.heal();
            assertThat(redis.client().zcard(key)).as("the release never reached Redis").isEqualTo(1L);
            // The lease goes with the key, whose TTL the acquisition set to its window: Redis itself
            // removes it within the window. Read from Redis, not timed with a stopwatch, which on a busy
            // machine would measure this thread's scheduling as much as Redis' expiry.
            assertThat(redis.client().pttl(key)).as("expires within the window")
                    .isPositive().isLessThanOrEqualTo(oneInFlight.window().toMillis());

            // Polls Redis' own state until the key is gone; the deadline only stops a hang.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (redis.client().exists(key) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(redis.client().exists(key)).as("the lease expired with its window").isFalse();
            limiter.release(held);
        }
    }
}
