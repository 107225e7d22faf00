package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.Durations;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code sliding-log} for the transaction transport: the log {@code sliding-log.lua} keeps (one
 * sorted-set entry per admission, scored by its time in microseconds, named by the running total
 * of permits), decided with WATCH and MULTI/EXEC for Redis users that may not run scripts. The
 * same key works under either transport.
 *
 * <p>One transaction decides a client's requests that wait together ({@link SlidingLogTurns}), in
 * their order, each as it would be decided after the ones before it: admitted while it fits beside
 * the log and those admitted before it. A decision reads under WATCH and writes in MULTI/EXEC only
 * what it admits, so a denial writes nothing. When another node changed the log between the reads
 * and EXEC, Redis ran nothing and the requests are decided again after a random pause that grows;
 * the connection goes back to the pool before the pause, so a client whose nodes race each other
 * holds no connection that other clients wait for. Once {@code patienceNanos} have passed, each
 * request is denied as {@link Outcome#contended}: a lost race says nothing about Redis' health and
 * nothing of it was counted, so it is neither a failure for the breaker and the failure policy nor
 * an admission. Each try is a {@link SlidingLogAttempt}.
 */
final class SlidingLogTransactions {
    /** A decision: allowed (1 or 0), remaining, retry-after and reset-after in microseconds. */
    static final class Outcome {
        final boolean allowed;
        final long remaining;
        final long retryAfterMicros;
        final long resetAfterMicros;
        /**
         * Denied, not by the limit, because it could not be decided within the patience: other nodes
         * kept changing the log, or its turn behind the same client's requests did not come.
         */
        final boolean contended;

        Outcome(boolean allowed, long remaining, long retryAfterMicros, long resetAfterMicros) {
            this(allowed, remaining, retryAfterMicros, resetAfterMicros, false);
        }

        private Outcome(boolean allowed, long remaining, long retryAfterMicros, long resetAfterMicros,
                boolean contended) {
            this.allowed = allowed;
            this.remaining = remaining;
            this.retryAfterMicros = retryAfterMicros;
            this.resetAfterMicros = resetAfterMicros;
            this.contended = contended;
        }

        /**
         * A denial of a request that could not be decided: nothing left to count on before
         * {@code retryAfterMicros}, when it may try again; reset at the latest of that and {@code reset}.
         */
        static Outcome contended(long retryAfterMicros, long reset) {
            return new Outcome(false, 0, retryAfterMicros, Math.max(retryAfterMicros, reset), true);
        }

        long[] toArray() {
            return new long[] {allowed ? 1 : 0, remaining, retryAfterMicros, resetAfterMicros};
        }
    }

    /**
     * Where each try runs: on a session of its own (a pooled connection borrowed for the try and given
     * back after it, before any pause), through the gateway's routing and breaker.
     */
    interface Sessions {
        Outcome[] onOne(Function<WatchedSession, Outcome[]> attempt);
    }

    private SlidingLogTransactions() {
    }

    /**
     * Decides requests of one client, in their order: one outcome each. Past {@code patienceNanos} of other
     * nodes changing the log, every request is denied as {@link Outcome#contended}, with that as its retry-after.
     */
    static Outcome[] decide(Sessions sessions, String key, long[] permits, long limit, long windowMicros,
            long patienceNanos) {
        long giveUpAt = System.nanoTime() + patienceNanos;
        long[] lastReset = new long[1];
        for (int tries = 0; ; tries++) {
            Outcome[] outcomes = sessions.onOne(session -> SlidingLogAttempt.run(session, key, permits, limit, windowMicros, true,
                    lastReset));
            if (outcomes != null) {
                return outcomes;
            }
            long left = giveUpAt - System.nanoTime();
            if (left <= 0) {
                Outcome[] contended = new Outcome[permits.length];
                Arrays.fill(contended, Outcome.contended(TimeUnit.NANOSECONDS.toMicros(patienceNanos), lastReset[0]));
                return contended;
            }
            // Every node that lost the race tries again: a random pause that grows spreads them out.
            // Short (at most 16 ms), as each round has a winner; never past the patience.
            long pause = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1L << Math.min(tries, 4)));
            Durations.pause(TimeUnit.NANOSECONDS.toMillis(Math.min(pause, left)));
        }
    }

    /** The client's state for a request of {@code permits}, without watching or writing anything. */
    static Outcome peek(Sessions sessions, String key, long permits, long limit, long windowMicros) {
        return sessions.onOne(session -> SlidingLogAttempt.run(session, key, new long[] {permits}, limit, windowMicros, false,
                new long[1]))[0];
    }
}
