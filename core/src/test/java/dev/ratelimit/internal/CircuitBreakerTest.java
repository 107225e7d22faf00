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

    @Test
    void aProbeThatEndsWithoutAVerdictPassesItsTurnToTheNextCaller() {
        open();
        advanceMillis(1000);
        assertThat(breaker.allowCall()).as("the probe").isTrue();
        assertThat(breaker.allowCall()).isFalse();

        breaker.onInconclusive();

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.allowCall()).as("the next caller probes at once").isTrue();
        assertThat(breaker.allowCall()).as("one probe at a time still").isFalse();
        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void anInconclusiveCallChangesNothingWhenClosedOrOpen() {
        breaker.onFailure();
        breaker.onInconclusive();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).as("the count went on").isEqualTo(State.OPEN);
        breaker.onInconclusive();
        assertThat(breaker.allowCall()).as("still cooling down").isFalse();
    }

    @Test
    void aProbeThatNeverReportsIsPresumedLostAfterItsLease() {
        CircuitBreaker leased = new CircuitBreaker(1, Duration.ofSeconds(1), Duration.ofMillis(600), now::get);
        leased.onFailure();
        advanceMillis(1000);
        assertThat(leased.allowCall()).as("the probe, which will never report").isTrue();

        advanceMillis(599);
        assertThat(leased.allowCall()).isFalse();
        advanceMillis(1);

        assertThat(leased.allowCall()).as("another probe after the lease").isTrue();
        assertThat(leased.allowCall()).isFalse();
        leased.onFailure();
        assertThat(leased.state()).isEqualTo(State.OPEN);
        assertThat(leased.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }
}
