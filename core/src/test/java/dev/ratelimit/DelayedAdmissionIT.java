package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.resps.Tuple;

/**
 * Delayed admissions through {@link RateLimiter#tryAcquire(String, Duration)}, on Redis' own clock,
 * two limiters of one policy standing for two nodes: many threads at once are admitted now or for
 * an instant ahead, never more than the limit in any window; a refund gives a delayed admission's
 * permits back; the local deny cache does not answer a request that could wait; and what cannot
 * reserve is refused with the reason. (Exact instants are {@code DelayedAdmissionClockIT}'s.)
 */
class DelayedAdmissionIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final RedisStoreExtension store = new RedisStoreExtension(redis);

    private static RateLimiter node(String policy, Rule rule) {
        return store.limiter(policy).rule(rule).build();
    }

    /**
     * 10 per second and up to 3 s of wait: 40 requests at once over two nodes fit in four windows
     * (now and three ahead), so each is admitted, 10 at once and 30 delayed; the sliding log in Redis
     * then holds every admission at its instant, and no second-long span holds more than 10.
     */
    @Test
    void manyThreadsOnTwoNodesAreAdmittedNowOrLaterButNeverOverTheLimit() throws Exception {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1));
        RateLimiter one = node("burst", rule);
        RateLimiter two = node("burst", rule);
        int now = 0;
        int delayed = 0;
        for (Decision decision : atOnce(40, Duration.ofSeconds(3), one, two)) {
            assertThat(decision.allowed()).as("every one fits within 3 s: %s", decision).isTrue();
            if (decision.delayed()) {
                delayed++;
                assertThat(decision.delay()).isLessThanOrEqualTo(Duration.ofSeconds(3));
            } else {
                now++;
            }
        }
        assertThat(now).as("admitted at once: the limit").isEqualTo(10);
        assertThat(delayed).isEqualTo(30);
        assertThat(one.stats().delayedAdmissions() + two.stats().delayedAdmissions()).as("counted").isEqualTo(30);
        assertThat(one.stats().allowed() + two.stats().allowed()).as("and allowed").isEqualTo(40);

        List<Tuple> log = redis.client().zrangeWithScores(RedisKeys.key(redis.keyPrefix(), "burst", "client"), 0, -1);
        assertThat(log).as("one entry per admission, delayed ones at their instants").hasSize(40);
        for (int i = 10; i < log.size(); i++) {
            long span = (long) log.get(i).getScore() - (long) log.get(i - 10).getScore();
            assertThat(span).as("the 11th admission counted from any one is a whole window later").isGreaterThanOrEqualTo(1_000_000L);
        }

        Decision over = one.tryAcquire("client", Duration.ofSeconds(3));
        assertThat(over.allowed()).as("the 41st would wait 4 s: denied").isFalse();
        assertThat(over.retryAfter()).isGreaterThan(Duration.ofSeconds(3));
    }

    /**
     * fixed-window delays into the next window only: 30 at once over two nodes, 10 per window (and
     * up to two windows of wait allowed), are
     * 10 admitted, 10 delayed to the next window's start, and 10 refused.
     */
    @Test
    void fixedWindowDelaysExactlyOneWindowsWorthOnTwoNodes() throws Exception {
        // 5 s windows: the burst is decided long before the first ends, however busy the machine.
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(5));
        RateLimiter one = node("fixed-burst", rule);
        RateLimiter two = node("fixed-burst", rule);
        int now = 0;
        int delayed = 0;
        int denied = 0;
        for (Decision decision : atOnce(30, Duration.ofSeconds(10), one, two)) {
            if (!decision.allowed()) {
                denied++;
            } else if (decision.delayed()) {
                delayed++;
                assertThat(decision.delay()).isLessThanOrEqualTo(Duration.ofMillis(5001));
            } else {
                now++;
            }
        }
        assertThat(new int[] {now, delayed, denied}).containsExactly(10, 10, 10);
    }

    /** {@code count} tries of one client at once, from 16 threads, alternating between the nodes. */
    private static List<Decision> atOnce(int count, Duration maxDelay, RateLimiter... nodes) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Decision>> futures = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                RateLimiter node = nodes[i % nodes.length];
                futures.add(threads.submit(() -> {
                    start.await();
                    return node.tryAcquire("client", maxDelay);
                }));
            }
            start.countDown();
            List<Decision> decisions = new ArrayList<>();
            for (Future<Decision> future : futures) {
                decisions.add(future.get());
            }
            return decisions;
        } finally {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aDelayedAdmissionGivenBackFreesItsInstantForTheNext(Algorithm algorithm) {
        String policy = "refund-" + algorithm.configName();
        RateLimiter one = node(policy, Rule.of(algorithm, 1, Duration.ofSeconds(10)));
        RateLimiter two = node(policy, Rule.of(algorithm, 1, Duration.ofSeconds(10)));
        assertThat(one.tryAcquire("client").allowed()).isTrue();
        Decision delayed = one.tryAcquire("client", Duration.ofSeconds(30));
        assertThat(delayed.delayed()).isTrue();
        assertThat(delayed.delay()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10).plusNanos(1000));
        Decision behind = two.peek("client");
        // Relations only, no clock read here: behind it, the next turn is one interval (10 s) later.
        assertThat(behind.retryAfter()).as("the next waits behind it").isGreaterThan(Duration.ofSeconds(10));

        assertThat(one.refund("client", delayed)).as("a request that will not run gives its instant back").isTrue();
        Decision after = two.tryAcquire("client", Duration.ofSeconds(30));
        assertThat(after.delayed()).isTrue();
        assertThat(after.delay()).as("the next takes that instant, not the one behind it")
                .isLessThan(behind.retryAfter().minusSeconds(5));
    }

    @Test
    void aRememberedDenialDoesNotAnswerARequestThatCouldWait() {
        RateLimiter node = node("cache", Rule.of(Algorithm.GCRA, 1, Duration.ofSeconds(10)));
        assertThat(node.tryAcquire("client").allowed()).isTrue();
        assertThat(node.tryAcquire("client").allowed()).as("a plain try: denied and remembered").isFalse();
        Decision waiting = node.tryAcquire("client", Duration.ofSeconds(20));
        assertThat(waiting.delayed()).as("within the wait allowed, Redis reserves it").isTrue();
        Decision tooLong = node.tryAcquire("client", Duration.ofSeconds(1));
        assertThat(tooLong.allowed()).isFalse();
        long cached = node.stats().localCacheDenials();
        assertThat(node.tryAcquire("client", Duration.ofSeconds(1)).allowed()).isFalse();
        assertThat(node.stats().localCacheDenials()).as("a wait past the maximum: the cache answers").isEqualTo(cached + 1);
    }

    @Test
    void whatCannotReserveIsRefusedWithTheReason() {
        RateLimiter leaky = node("leaky", Rule.of(Algorithm.LEAKY_BUCKET, 1, Duration.ofSeconds(10)));
        assertThatThrownBy(() -> leaky.tryAcquire("client", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("algorithm leaky-bucket");
        RateLimiter boxed = node("boxed", Rule.builder(Algorithm.GCRA, 1, Duration.ofSeconds(10))
                .penalty(Duration.ofSeconds(5)).build());
        assertThatThrownBy(() -> boxed.tryAcquire("client", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("penalty");
        RateLimiter gcra = node("bounds", Rule.of(Algorithm.GCRA, 1, Duration.ofSeconds(10)));
        assertThatThrownBy(() -> gcra.tryAcquire("client", Duration.ofSeconds(61)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxDelay must be whole milliseconds between 1ms and 1m, but was 61s");
        assertThatThrownBy(() -> gcra.tryAcquire("client", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
