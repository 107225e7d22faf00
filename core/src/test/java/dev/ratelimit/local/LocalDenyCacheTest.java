package dev.ratelimit.local;

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
        LocalDenyCache cache = new LocalDenyCache(10, now::get);
        cache.put("c\n0", denial(100));

        advance(60);
        Decision remembered = cache.get("c\n0");
        assertThat(remembered.allowed()).isFalse();
        assertThat(remembered.retryAfter()).isEqualTo(Duration.ofMillis(40));
        assertThat(remembered.resetAfter()).isEqualTo(Duration.ofMillis(940));

        advance(40);
        assertThat(cache.get("c\n0")).as("at retry-after Redis decides again").isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void onlyTheSameClientAndCostAreDenied() {
        LocalDenyCache cache = new LocalDenyCache(10, now::get);
        cache.put("c\n5", denial(100));
        assertThat(cache.get("c\n1")).isNull();
        assertThat(cache.get("d\n5")).isNull();
        assertThat(cache.get("c\n5")).isNotNull();
    }

    @Test
    void allowedAndDegradedDecisionsAreNeverRemembered() {
        LocalDenyCache cache = new LocalDenyCache(10, now::get);
        cache.put("a", Decision.of(true, rule, 3, Duration.ZERO, Duration.ofSeconds(1)));
        cache.put("b", Decision.degraded(false, rule, Duration.ofSeconds(1)));
        assertThat(cache.size()).isZero();
    }

    @Test
    void memoryIsBoundedAndExpiredEntriesMakeRoom() {
        LocalDenyCache cache = new LocalDenyCache(3, now::get);
        cache.put("a", denial(10));
        cache.put("b", denial(10));
        cache.put("c", denial(1_000));
        cache.put("d", denial(1_000));
        assertThat(cache.size()).as("full: the new denial is not remembered").isEqualTo(3);
        assertThat(cache.get("d")).isNull();

        advance(10);
        cache.put("d", denial(1_000));

        assertThat(cache.size()).as("a and b expired and were dropped").isEqualTo(2);
        assertThat(cache.get("d")).isNotNull();
    }

    @Test
    void forgettingAClientDropsAllItsCosts() {
        LocalDenyCache cache = new LocalDenyCache(10, now::get);
        cache.put("c\n0", denial(100));
        cache.put("c\n3", denial(100));
        cache.put("other\n0", denial(100));
        cache.forget("c\n");
        assertThat(cache.size()).isEqualTo(1);
    }
}
