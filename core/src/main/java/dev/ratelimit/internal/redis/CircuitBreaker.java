package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Stops calling a Redis that keeps failing, so that requests do not each wait for a timeout, and
 * lets one caller find out whether a doubtful node is back while the others wait for its verdict.
 *
 * <p>Closed: every call goes through; {@code failureThreshold} consecutive failures open it.
 * Open: no call goes through until {@code coolDown} has passed. Then half-open: exactly one call
 * (the probe) goes through; its success closes the breaker, its failure opens it for another
 * cool-down. Only failures to reach Redis count: an error reply means Redis is there.
 *
 * <p><b>Nobody is turned away while the answer is on its way.</b> The callers that arrive while a
 * probe is out wait for its verdict, for at most {@code probeWait} (as for another call's round
 * trip): if the probe reached Redis they go to Redis too, and only if it failed, or no verdict
 * came in time, are they refused. Refusing them at once would hand every decision of the first
 * moments after an outage to the failure policy, although Redis is answering: a burst right after a
 * restart would then be admitted past its limit. The same holds for a closed breaker whose node the
 * caller doubts (a node quiet for a while, which may have restarted meanwhile): the first such
 * caller is the probe that checks it, and the others wait for what it finds.
 *
 * <p>A probe must report. One that ends with neither verdict (a bug threw something else) gives its
 * turn to the next caller ({@link #onInconclusive()}), and one that never reports at all is
 * presumed lost after {@code probeLease}: the next caller probes instead. Either way the breaker
 * cannot stay half-open with no probe out, which would switch the limiter off for good.
 *
 * <p>The closed state, where a healthy system always is, costs two volatile reads per call; the
 * transitions and the waits take the monitor. Cool-down and lease follow the injected clock, so the
 * states can be tested without sleeping; a caller's wait is real time.
 */
public final class CircuitBreaker {
    /** Where the breaker is. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    /** What {@link #pass(boolean)} lets a caller do. */
    public enum Pass {
        /** Call Redis. */
        GO,
        /** Call Redis as the probe: check the connection first, and report the outcome. */
        PROBE,
        /** Open and cooling down: do not call. */
        COOLING_DOWN,
        /** The probe this caller waited for could not reach Redis: do not call. */
        PROBE_FAILED,
        /** No verdict within the wait: do not call. */
        NO_VERDICT;

        /** Whether the caller may call Redis. */
        public boolean allowed() {
            return this == GO || this == PROBE;
        }
    }

    /** What the last reported call told. */
    private enum Verdict {
        ANSWERED, UNREACHABLE, NONE
    }

    private final int failureThreshold;
    private final long coolDownNanos;
    private final long probeLeaseNanos;
    private final long probeWaitNanos;
    private final LongSupplier nanoClock;

    private volatile State state = State.CLOSED;
    /** Written under the monitor, read without it on the success fast path. */
    private volatile int consecutiveFailures;
    /** Whether a probe is out; written under the monitor, read without it on the success fast path. */
    private volatile boolean probeOut;
    private long openUntil;
    /** While a probe is out: when it is presumed lost and another may go. */
    private long probeDeadline;
    /** Reports so far, so that a waiting caller sees that one came; and what the last one told. */
    private long reports;
    private Verdict lastVerdict = Verdict.NONE;

    /**
     * @param failureThreshold consecutive failures that open the breaker, at least 1
     * @param coolDown how long it stays open before letting one probe through
     * @param probeLease how long a probe may stay out without reporting before another is let through;
     *     longer than any call can take, so that two probes are rarely out together
     * @param probeWait how long a caller that finds a probe out waits for its verdict, as for any other
     *     call's round trip (the pool wait, at least the timeout); zero refuses such callers at once
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public CircuitBreaker(int failureThreshold, Duration coolDown, Duration probeLease, Duration probeWait,
            LongSupplier nanoClock) {
        this.failureThreshold = failureThreshold;
        this.coolDownNanos = coolDown.toNanos();
        this.probeLeaseNanos = probeLease.toNanos();
        this.probeWaitNanos = probeWait.toNanos();
        this.nanoClock = nanoClock;
    }

    /**
     * Whether and how a call may go to Redis now; it may wait for a probe's verdict first.
     *
     * @param doubt the caller doubts the node although the breaker is closed (it has been quiet for a
     *     while): then the first such caller is the probe, and the others wait for its verdict
     * @return {@link Pass#PROBE} for the one caller that must find out and report, {@link Pass#GO}
     *     for the others that may call, or why not
     */
    public Pass pass(boolean doubt) {
        if (state == State.CLOSED && !doubt) {
            return Pass.GO;
        }
        synchronized (this) {
            long waitedFor = -1;
            long waitEnd = 0;
            boolean interrupted = false;
            try {
                for (;;) {
                    long now = nanoClock.getAsLong();
                    if (probeOut && now - probeDeadline >= 0) {
                        probeOut = false;
                    }
                    if (waitedFor >= 0 && reports != waitedFor) {
                        // The call this caller waited for has reported.
                        if (lastVerdict == Verdict.ANSWERED) {
                            return Pass.GO;
                        }
                        if (lastVerdict == Verdict.UNREACHABLE) {
                            return Pass.PROBE_FAILED;
                        }
                        waitedFor = reports;
                    }
                    if (state == State.OPEN) {
                        if (now - openUntil < 0) {
                            return Pass.COOLING_DOWN;
                        }
                        state = State.HALF_OPEN;
                        probeOut = false;
                    }
                    if (state == State.CLOSED && !doubt) {
                        // Another caller's check of a quiet node holds back only those who doubt it too.
                        return Pass.GO;
                    }
                    if (!probeOut) {
                        probeOut = true;
                        probeDeadline = now + probeLeaseNanos;
                        return Pass.PROBE;
                    }
                    // A probe is out: wait for its verdict, a while at most.
                    long real = System.nanoTime();
                    if (waitedFor < 0) {
                        waitedFor = reports;
                        waitEnd = real + probeWaitNanos;
                    }
                    long left = waitEnd - real;
                    if (left <= 0 || interrupted) {
                        return Pass.NO_VERDICT;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        // Like a wait for a pooled connection, an interrupt ends the wait; the flag is kept.
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * A call ended without telling whether Redis is there (it threw something that is neither an
     * answer nor a failure to reach Redis). Closed or open, nothing changes; with a probe out, the
     * probe's turn passes to the next caller at once.
     */
    public void onInconclusive() {
        if (!probeOut) {
            return;
        }
        synchronized (this) {
            probeOut = false;
            report(Verdict.NONE);
        }
    }

    /** Redis answered: close the breaker and forget past failures. */
    public void onSuccess() {
        if (state == State.CLOSED && consecutiveFailures == 0 && !probeOut) {
            return;
        }
        synchronized (this) {
            state = State.CLOSED;
            consecutiveFailures = 0;
            probeOut = false;
            report(Verdict.ANSWERED);
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
        probeOut = false;
        report(Verdict.UNREACHABLE);
    }

    /** Under the monitor: wakes the callers waiting for a verdict. */
    private void report(Verdict verdict) {
        reports++;
        lastVerdict = verdict;
        notifyAll();
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

    /** Why a call was refused, to follow "Redis at ..." in a message. */
    public String refusal(Pass pass) {
        switch (pass) {
            case PROBE_FAILED:
                return "could not be reached by the call that checked it while this one waited";
            case NO_VERDICT:
                return "was being checked by another call, with no verdict within "
                        + Durations.format(Duration.ofNanos(probeWaitNanos)) + ", the wait for a pooled connection";
            default:
                return "failed repeatedly and is not called for another "
                        + Durations.format(Duration.ofMillis(remainingCoolDown().toMillis())) + " (circuit open)";
        }
    }

    @Override
    public synchronized String toString() {
        return "CircuitBreaker(" + state + ", " + consecutiveFailures + "/" + failureThreshold + " failures"
                + (probeOut ? ", probe out" : "") + ")";
    }
}
