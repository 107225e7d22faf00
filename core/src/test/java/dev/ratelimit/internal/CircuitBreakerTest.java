package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.CircuitBreaker.State;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
    private final AtomicLong now = new AtomicLong(5_000);
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), now::get);

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void itOpensAfterConsecutiveFailuresOnly() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).as("a success in between starts the count again").isEqualTo(State.CLOSED);
        assertThat(breaker.allowCall()).isTrue();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.allowCall()).isFalse();
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void afterTheCoolDownExactlyOneProbeGoesThrough() {
        open();
        advanceMillis(999);
        assertThat(breaker.allowCall()).isFalse();
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofMillis(1));

        advanceMillis(1);

        assertThat(breaker.allowCall()).as("the probe").isTrue();
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.allowCall()).as("everyone else while the probe is out").isFalse();
        assertThat(breaker.allowCall()).isFalse();
    }

    @Test
    void aSuccessfulProbeClosesIt() {
        open();
        advanceMillis(1000);
        assertThat(breaker.allowCall()).isTrue();

        breaker.onSuccess();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.allowCall()).isTrue();
        breaker.onFailure();
        assertThat(breaker.state()).as("the count started again").isEqualTo(State.CLOSED);
    }

    @Test
    void aFailedProbeOpensItForAnotherCoolDown() {
        open();
        advanceMillis(1000);
        assertThat(breaker.allowCall()).isTrue();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
        advanceMillis(500);
        assertThat(breaker.allowCall()).isFalse();
        advanceMillis(500);
        assertThat(breaker.allowCall()).isTrue();
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }
}
