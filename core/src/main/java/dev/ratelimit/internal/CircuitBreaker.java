package dev.ratelimit.internal;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Stops calling a Redis that keeps failing, so that requests do not each wait for a timeout.
 *
 * <p>Closed: every call goes through; {@code failureThreshold} consecutive failures open it.
 * Open: no call goes through until {@code coolDown} has passed. Then half-open: exactly one call
 * (the probe) goes through; its success closes the breaker, its failure opens it for another
 * cool-down. Only failures to reach Redis count: an error reply means Redis is there.
 *
 * <p>A probe must report. One that ends with neither verdict (a bug threw something else) gives its
 * turn to the next caller ({@link #onInconclusive()}), and one that never reports at all is
 * presumed lost after {@code probeLease}: the next caller probes instead. Either way the breaker
 * cannot stay half-open with no probe out, which would switch the limiter off for good.
 *
 * <p>The closed state, where a healthy system always is, costs one volatile read per call; the
 * transitions take a lock. The clock is injected so the states can be tested without sleeping.
 */
public final class CircuitBreaker {
    /** Where the breaker is. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private final int failureThreshold;
    private final long coolDownNanos;
    private final long probeLeaseNanos;
    private final LongSupplier nanoClock;

    private volatile State state = State.CLOSED;
    /** Written under the lock, read without it on the success fast path. */
    private volatile int consecutiveFailures;
    private long openUntil;
    /** While half-open: when the probe out is presumed lost and another may go. */
    private long probeDeadline;

    /**
     * @param failureThreshold consecutive failures that open the breaker, at least 1
     * @param coolDown how long it stays open before letting one probe through
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public CircuitBreaker(int failureThreshold, Duration coolDown, LongSupplier nanoClock) {
        this(failureThreshold, coolDown, coolDown, nanoClock);
    }

    /**
     * @param failureThreshold consecutive failures that open the breaker, at least 1
     * @param coolDown how long it stays open before letting one probe through
     * @param probeLease how long a probe may stay out without reporting before another is let through;
     *     longer than any call can take, so that two probes are rarely out together
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public CircuitBreaker(int failureThreshold, Duration coolDown, Duration probeLease, LongSupplier nanoClock) {
        this.failureThreshold = failureThreshold;
        this.coolDownNanos = coolDown.toNanos();
        this.probeLeaseNanos = probeLease.toNanos();
        this.nanoClock = nanoClock;
    }

    /**
     * Whether a call may go to Redis now. In half-open state only the first caller gets true: it
     * is the probe, and must report its outcome.
     */
    public boolean allowCall() {
        if (state == State.CLOSED) {
            return true;
        }
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (state == State.OPEN && now - openUntil >= 0
                    || state == State.HALF_OPEN && now - probeDeadline >= 0) {
                state = State.HALF_OPEN;
                probeDeadline = now + probeLeaseNanos;
                return true;
            }
            return state == State.CLOSED;
        }
    }

    /**
     * A call ended without telling whether Redis is there (it threw something that is neither an
     * answer nor a failure to reach Redis). Closed or open, nothing changes; half-open, the probe's
     * turn passes to the next caller at once.
     */
    public void onInconclusive() {
        if (state != State.HALF_OPEN) {
            return;
        }
        synchronized (this) {
            if (state == State.HALF_OPEN) {
                probeDeadline = nanoClock.getAsLong();
            }
        }
    }

    /** Redis answered: close the breaker and forget past failures. */
    public void onSuccess() {
        if (state == State.CLOSED && consecutiveFailures == 0) {
            return;
        }
        synchronized (this) {
            state = State.CLOSED;
            consecutiveFailures = 0;
        }
    }

    /** Redis could not be reached: count it, and open the breaker at the threshold or after a failed probe. */
    public synchronized void onFailure() {
        int failures = consecutiveFailures + 1;
        consecutiveFailures = failures;
        if (state == State.HALF_OPEN || failures >= failureThreshold) {
            state = State.OPEN;
            openUntil = nanoClock.getAsLong() + coolDownNanos;
            consecutiveFailures = 0;
        }
    }

    public State state() {
        return state;
    }

    /** How long until a probe may go through; zero unless open. */
    public synchronized Duration remainingCoolDown() {
        if (state != State.OPEN) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, openUntil - nanoClock.getAsLong()));
    }

    @Override
    public synchronized String toString() {
        return "CircuitBreaker(" + state + ", " + consecutiveFailures + "/" + failureThreshold + " failures)";
    }
}
