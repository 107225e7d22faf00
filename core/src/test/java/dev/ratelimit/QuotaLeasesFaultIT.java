package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Quota leases when Redis goes away and comes back: a node keeps admitting from a lease it holds
 * (Redis counted those permits), and no further; once the lease ends the failure policy answers,
 * never an exception; a give-back that cannot reach Redis is dropped; after the restart Redis alone
 * decides again and lends again. The lease's life runs on a clock the test moves.
 */
class QuotaLeasesFaultIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1));

    @AfterEach
    void redisIsBack() {
        if (!redis.isAnswering()) {
            redis.start();
        }
    }

    @Test
    void aLeaseOutlivesAnOutageOnlyUntilItEndsThenTheFailurePolicyAnswers() throws InterruptedException {
        AtomicLong nanos = new AtomicLong(System.nanoTime());
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(redis.uri())
                .timeout(Duration.ofMillis(300)).build())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("outage")
                    .rule(RULE).leases(true).onRedisFailure(FailurePolicy.DENY).clock(nanos::get).build();
            int admitted = 0;
            while (!leaseHeld(limiter)) {
                assertThat(limiter.tryAcquire("busy").allowed()).isTrue();
                admitted++;
                assertThat(admitted).as("a lease is taken within a few requests").isLessThan(20);
            }

            redis.stop();
            Decision fromLease = limiter.tryAcquire("busy");
            assertThat(fromLease.allowed()).as("admitted from the lease Redis counted").isTrue();
            assertThat(fromLease.degraded()).isFalse();

            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            Decision afterLease = limiter.tryAcquire("busy");
            assertThat(afterLease.allowed()).as("the lease has ended: onRedisFailure=deny").isFalse();
            assertThat(afterLease.degraded()).isTrue();
            assertThat(limiter.giveBackLeases()).as("nothing can go back, and nothing throws").isZero();

            redis.start();
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            // A pooled connection may have died with the old server: its call fails, unsent again.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            Decision back = limiter.tryAcquire("busy");
            while (back.degraded()) {
                assertThat(System.nanoTime()).as("Redis decides again within 10 s").isLessThan(deadline);
                Thread.sleep(20);
                back = limiter.tryAcquire("busy");
            }
            assertThat(back.allowed()).isTrue();
            assertThat(back.degraded()).isFalse();
            assertThat(back.remaining()).as("a restarted Redis (no persistence) counts afresh").isEqualTo(999);
        }
    }

    /** True once Redis counts more than the node has admitted: the node holds a lease. */
    private static boolean leaseHeld(RateLimiter limiter) {
        return limiter.peek("busy").remaining() < 1000 - limiter.stats().allowed();
    }
}
