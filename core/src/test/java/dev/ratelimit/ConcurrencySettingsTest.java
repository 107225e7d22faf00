package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code concurrency} refuses, at build time and naming the setting: whatever would make a
 * lease mean something else than one request in flight. No Redis needed.
 */
class ConcurrencySettingsTest {
    private static final RedisStore store = RedisStore.connect("redis://127.0.0.1:1");
    private static final Rule threeInFlight = Rule.of(Algorithm.CONCURRENCY, 3, Duration.ofSeconds(30));

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void aRequestHoldsExactlyOneLease() {
        assertThatThrownBy(() -> Rule.builder(Algorithm.CONCURRENCY, 3, Duration.ofSeconds(30)).cost(2).build())
                .hasMessage("cost must be 1 for algorithm concurrency (a request holds one lease while it is "
                        + "served), but was 2");
        assertThatThrownBy(() -> Rule.builder(Algorithm.CONCURRENCY, 3, Duration.ofSeconds(30)).burst(5).build())
                .hasMessage("burst applies only to token-bucket, leaky-bucket and gcra, but was 5 for algorithm "
                        + "concurrency");
        RateLimiter limiter = RateLimiter.builder(store).rule(threeInFlight).build();
        assertThatThrownBy(() -> limiter.tryAcquire("c", 2))
                .hasMessage("permits must be 1 for algorithm concurrency (a request holds one lease while it is "
                        + "served), but was 2");
    }

    @Test
    void oneRulePerLimiterLuaOnlyNoAdaptiveNoLocalFallback() {
        Rule other = Rule.builder(Algorithm.CONCURRENCY, 5, Duration.ofSeconds(30)).name("five").build();
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(threeInFlight).rule(other).build())
                .hasMessageStartingWith("rules of algorithm concurrency must be one per limiter");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(threeInFlight).transport(Transport.TRANSACTION)
                .build()).hasMessageStartingWith("transport 'transaction' supports exactly one rule, of fixed-window or sliding-log");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(threeInFlight).adaptive(AdaptiveLimit.floor(0.5))
                .build()).hasMessageContaining("adaptive limits apply to fixed-window, sliding-log, sliding-window and "
                        + "gcra, but rule 3/30s uses concurrency (it limits requests in flight; lower its limit "
                        + "instead)");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(threeInFlight).onRedisFailure(FailurePolicy.LOCAL)
                .build()).hasMessageStartingWith("onRedisFailure must be allow or deny for algorithm concurrency");
    }

    @Test
    void aDegradedAdmissionHoldsNoLeaseAndReleasingItDoesNothing() {
        RateLimiter limiter = RateLimiter.builder(store).rule(threeInFlight).onRedisFailure(FailurePolicy.ALLOW)
                .build();
        Decision degraded = limiter.tryAcquire("c");
        assertThat(degraded.allowed()).isTrue();
        assertThat(degraded.holdsLease()).isFalse();
        limiter.release(degraded);
        limiter.release(null);
    }
}
