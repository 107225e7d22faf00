package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's plain unit test of code that calls {@code RateLimiter} itself, on the kit's store: the
 * answers with their retry-after, the clock moved by the test, and a reset that the limiter hears
 * at once, whatever it kept in the JVM (a remembered denial, a quota lease).
 */
class RateLimiterOnTheKitTest {
    @RegisterExtension
    final TestOnlyRedisExtension redis = new TestOnlyRedisExtension("unit");

    /** The user's code: sends at most 2 mails a minute per customer. */
    static final class Mailer {
        private final RateLimiter limiter;

        Mailer(RedisStore store) {
            limiter = RateLimiter.builder(store).policyName("mail").rule(Rule.of(Algorithm.SLIDING_LOG, 2,
                    Duration.ofMinutes(1))).build();
        }

        boolean send(String customer) {
            return limiter.tryAcquire(customer).allowed();
        }
    }

    @Test
    void twoMailsAMinuteThenNoneUntilTheMinuteHasPassed() {
        Mailer mailer = new Mailer(redis.store());
        assertThat(mailer.send("ann")).isTrue();
        assertThat(mailer.send("ann")).isTrue();
        assertThat(mailer.send("ann")).isFalse();
        assertThat(mailer.send("bob")).as("another customer").isTrue();
        redis.advance(Duration.ofSeconds(59));
        assertThat(mailer.send("ann")).isFalse();
        redis.advance(Duration.ofSeconds(1));
        assertThat(mailer.send("ann")).isTrue();
    }

    @Test
    void aDenialSaysWhenToComeBackToTheMicrosecondOfTheClock() {
        RateLimiter limiter = RateLimiter.builder(redis.store()).rule(Rule.of(Algorithm.SLIDING_LOG, 2,
                Duration.ofSeconds(10))).build();
        limiter.tryAcquire("ann");
        redis.advance(Duration.ofMillis(2500));
        limiter.tryAcquire("ann");
        Decision denied = limiter.tryAcquire("ann");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofMillis(7500));
        redis.advance(Duration.ofMillis(7499));
        assertThat(limiter.tryAcquire("ann").allowed()).isFalse();
        redis.advance(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();
    }

    @Test
    void aResetForgetsTheDenialThisJvmRemembers() {
        RateLimiter limiter = RateLimiter.builder(redis.store()).rule(Rule.of(Algorithm.GCRA, 1, Duration.ofHours(1)))
                .localDenyCache(true).build();
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();
        assertThat(limiter.tryAcquire("ann").allowed()).isFalse();
        assertThat(limiter.stats().localCacheDenials()).as("remembered, not asked again").isZero();
        assertThat(limiter.tryAcquire("ann").allowed()).isFalse();
        assertThat(limiter.stats().localCacheDenials()).isEqualTo(1);

        redis.reset();

        assertThat(limiter.tryAcquire("ann").allowed()).as("as a fresh Redis answers").isTrue();
    }

    @Test
    void aResetForgetsTheQuotaThisJvmLeased() {
        RateLimiter limiter = RateLimiter.builder(redis.store()).rule(Rule.of(Algorithm.FIXED_WINDOW, 100,
                Duration.ofHours(1))).leases(true).build();
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire("busy").allowed()).isTrue();
        }
        assertThat(limiter.stats().leaseAdmissions()).as("some admitted from a lease this JVM holds").isPositive();

        redis.reset();

        int admitted = 0;
        while (limiter.tryAcquire("busy").allowed()) {
            admitted++;
        }
        assertThat(admitted).as("a fresh Redis's 100, and nothing more from a lease of the Redis that was").isEqualTo(100);
    }

    /** Like Redis, one command or script at a time: threads deciding at once never admit more than the limit. */
    @Test
    void threadsDecidingAtOnceAdmitExactlyTheLimit() throws Exception {
        RateLimiter limiter = RateLimiter.builder(redis.store()).rule(Rule.of(Algorithm.SLIDING_WINDOW, 100,
                Duration.ofHours(1))).build();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                admitted.add(threads.submit(() -> {
                    int mine = 0;
                    for (int i = 0; i < 40; i++) {
                        mine += limiter.tryAcquire("shared").allowed() ? 1 : 0;
                    }
                    return mine;
                }));
            }
            int total = 0;
            for (Future<Integer> each : admitted) {
                total += each.get();
            }
            assertThat(total).isEqualTo(100);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aCalendarDayEndsWhenTheKitsClockSaysSo() {
        RateLimiter limiter = RateLimiter.builder(redis.store()).rule(Rule.calendar(1, CalendarPeriod.DAY,
                ZoneOffset.UTC).build()).build();
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();
        Decision denied = limiter.tryAcquire("ann");
        assertThat(denied.allowed()).isFalse();
        redis.advance(denied.retryAfter());
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();
    }
}
