package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LocalDenyCacheTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final Rule rule = Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1));

    private Decision denial(long retryAfterMillis) {
        return Decision.of(false, rule, 0, Duration.ofMillis(retryAfterMillis), Duration.ofSeconds(1));
    }

    private void advance(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void aDenialIsRememberedUntilItsRetryAfterAndNotAMomentLonger() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(10, now::get);
        cache.put("c\n0", denial(100), cache.now());

        advance(60);
        Decision remembered = cache.get("c\n0");
        assertThat(remembered.allowed()).isFalse();
        assertThat(remembered.retryAfter()).isEqualTo(Duration.ofMillis(40));
        assertThat(remembered.resetAfter()).isEqualTo(Duration.ofMillis(940));

        advance(40);
        assertThat(cache.get("c\n0")).as("at retry-after Redis decides again").isNull();
        assertThat(cache.size()).isZero();
    }

    /**
     * Redis' retry-after runs from when its script ran, between the call leaving and the reply
     * arriving: counted from the call's leaving, the entry ends at Redis' instant or before, never
     * after (issue 48, item 10). The wait it reports is shortened by the reply's travel too.
     */
    @Test
    void aDenialIsRememberedFromWhenTheCallLeftNotFromWhenItsReplyArrived() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(10, now::get);
        long asked = cache.now();
        advance(30);
        cache.put("c\n0", denial(100), asked);

        assertThat(cache.get("c\n0").retryAfter()).isEqualTo(Duration.ofMillis(70));
        advance(69);
        assertThat(cache.get("c\n0")).isNotNull();
        advance(1);
        assertThat(cache.get("c\n0")).as("100 ms after the call left, Redis may admit").isNull();
    }

    @Test
    void onlyTheSameClientAndCostAreDenied() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(10, now::get);
        cache.put("c\n5", denial(100), cache.now());
        assertThat(cache.get("c\n1")).isNull();
        assertThat(cache.get("d\n5")).isNull();
        assertThat(cache.get("c\n5")).isNotNull();
    }

    @Test
    void allowedAndDegradedDecisionsAreNeverRemembered() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(10, now::get);
        cache.put("a", Decision.of(true, rule, 3, Duration.ZERO, Duration.ofSeconds(1)), cache.now());
        cache.put("b", Decision.degraded(false, rule, Duration.ofSeconds(1)), cache.now());
        assertThat(cache.size()).isZero();
    }

    @Test
    void memoryIsBoundedAndExpiredEntriesMakeRoom() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(3, now::get);
        cache.put("a", denial(10), cache.now());
        cache.put("b", denial(10), cache.now());
        cache.put("c", denial(1_000), cache.now());
        cache.put("d", denial(1_000), cache.now());
        assertThat(cache.size()).as("full: the new denial is not remembered").isEqualTo(3);
        assertThat(cache.get("d")).isNull();

        advance(10);
        cache.put("d", denial(1_000), cache.now());

        assertThat(cache.size()).as("a and b expired and were dropped").isEqualTo(2);
        assertThat(cache.get("d")).isNotNull();
    }

    /**
     * A flood of new clients into a full cache (an attacker rotating addresses): no scan per denial,
     * only one once the earliest entry can have expired, and that one makes room.
     */
    @Test
    void aFullCacheIsScannedOnlyOnceItsEarliestEntryCanHaveExpired() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(100, now::get);
        for (int i = 0; i < 100; i++) {
            cache.put("held" + i, denial(i == 42 ? 500 : 60_000), cache.now());
        }
        for (int i = 0; i < 10_000; i++) {
            cache.put("new" + i, denial(60_000), cache.now());
        }
        assertThat(cache.sweeps()).as("nothing can have expired: no scan").isZero();
        assertThat(cache.size()).isEqualTo(100);

        advance(499);
        cache.put("new-a", denial(60_000), cache.now());
        assertThat(cache.sweeps()).as("a millisecond before the earliest expiry: no scan").isZero();
        advance(1);
        cache.put("new-b", denial(60_000), cache.now());
        assertThat(cache.sweeps()).isEqualTo(1);
        assertThat(cache.get("new-b")).as("held42 expired and made room").isNotNull();
        assertThat(cache.get("held42")).isNull();
        cache.put("new-c", denial(60_000), cache.now());
        for (int i = 0; i < 1_000; i++) {
            cache.put("more" + i, denial(60_000), cache.now());
        }
        assertThat(cache.sweeps()).as("full again, and nothing can expire for a minute").isEqualTo(1);
    }

    @Test
    void forgettingAClientDropsAllItsCosts() {
        LocalDenyCache<String> cache = new LocalDenyCache<>(10, now::get);
        cache.put("c\n0", denial(100), cache.now());
        cache.put("c\n3", denial(100), cache.now());
        cache.put("other\n0", denial(100), cache.now());
        cache.forget(key -> key.startsWith("c\n"));
        assertThat(cache.size()).isEqualTo(1);
    }
}
