package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.LogThrottle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lines up the transaction-transport decisions of one sliding log that this JVM makes at the same
 * moment, so that they never race each other under WATCH, and decides those waiting together in one
 * transaction ({@link SlidingLogTransactions}).
 *
 * <p>Without it, every concurrent request of one client ran its own WATCH and MULTI/EXEC: all but
 * one found the log changed at EXEC, and tried again, each holding a pooled connection through its
 * pauses. Behind a millisecond of network latency a storm of one client's requests so held every
 * connection of the pool, the other clients' decisions waited for one in vain, and the waits that
 * timed out opened the node's breaker: every policy on that Redis then failed open. Now a client's
 * requests on this node wait their turn instead: the first goes at once; those that arrive while it
 * is under way join the key's line, and when it is answered the oldest of them decides every waiting
 * request of the same rule (up to {@link #MAX_BATCH}) in one transaction, on one connection. A storm
 * of one client takes one connection of the pool, a few round trips decide hundreds of its requests,
 * and only other nodes can change the log between a transaction's reads and its EXEC.
 *
 * <p>No waiting request is admitted without being counted. One whose turn has not come within the
 * patience (the pool wait, at least {@code redisTimeout}) is denied, as a decision whose log other
 * nodes kept changing for the whole patience is: {@link SlidingLogTransactions.Outcome#contended},
 * with the patience as its retry-after. Neither is a failure of Redis, so neither reaches the
 * breaker or {@code onRedisFailure}; both are counted ({@link #contendedDenials()}) and logged at
 * WARN, at most once a minute, as {@code TRANSACTION_CONTENTION}.
 *
 * <p>A key has an entry here only while a decision of it is under way: a million clients, each
 * deciding now and then, leave nothing behind. Thread-safe; no thread of its own.
 */
final class SlidingLogTurns {
    /** Most requests decided in one transaction: bounds one MULTI's commands and the wait of its last reply. */
    static final int MAX_BATCH = 64;
    private static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RedisStore");

    private final long patienceNanos;
    private final String where;
    /** Keys with a decision under way, each with the requests waiting for their turn; touched only in compute. */
    private final ConcurrentMap<String, ArrayDeque<Waiter>> lines = new ConcurrentHashMap<>();
    private final AtomicLong contended = new AtomicLong();
    private final LogThrottle contentionLog = new LogThrottle(1, TimeUnit.MINUTES);

    /** @param patience how long a request waits for its turn, and a transaction tries while others change the log */
    SlidingLogTurns(Duration patience, String where) {
        this.patienceNanos = patience.toNanos();
        this.where = where;
    }

    /** A request in a key's line, and then its answer. */
    private static final class Waiter {
        final long permits;
        final long limit;
        final long windowMicros;
        final Thread thread = Thread.currentThread();
        volatile SlidingLogTransactions.Outcome outcome;
        volatile RuntimeException failure;
        /** Set when the request before it hands it the turn to decide the line. */
        volatile boolean turn;

        Waiter(long permits, long limit, long windowMicros) {
            this.permits = permits;
            this.limit = limit;
            this.windowMicros = windowMicros;
        }

        boolean answered() {
            return outcome != null || failure != null;
        }

        /** Whether one transaction can decide both: the same rule (overrides may change it meanwhile). */
        boolean sameRule(Waiter other) {
            return limit == other.limit && windowMicros == other.windowMicros;
        }

        long[] answer() {
            if (failure != null) {
                throw failure;
            }
            return outcome.toArray();
        }
    }

    /**
     * Decides one request: at once when no other request of its key is under way in this JVM, else in its
     * turn; a peek, which watches and writes nothing, at once. {@link RedisGateway#slidingLogInTransaction}'s reply.
     */
    long[] decide(SlidingLogTransactions.Sessions sessions, String key, long permits, long limit, long windowMicros,
            boolean consume) {
        if (!consume) {
            return SlidingLogTransactions.peek(sessions, key, permits, limit, windowMicros).toArray();
        }
        Waiter self = new Waiter(permits, limit, windowMicros);
        boolean[] first = new boolean[1];
        lines.compute(key, (k, line) -> {
            if (line == null) {
                first[0] = true;
                return new ArrayDeque<>();
            }
            line.add(self);
            return line;
        });
        if (first[0] || awaitTurn(key, self)) {
            lead(sessions, key, self);
        }
        return self.answer();
    }

    /** Requests denied because they could not be decided in time (other nodes, or this client's own storm). */
    long contendedDenials() {
        return contended.get();
    }

    /** Keys with a decision under way now, for tests. */
    int keysUnderWay() {
        return lines.size();
    }

    /** Requests of {@code key} waiting for their turn now, for tests. */
    int waiting(String key) {
        int[] count = new int[1];
        lines.computeIfPresent(key, (k, line) -> {
            count[0] = line.size();
            return line;
        });
        return count[0];
    }

    /** Waits until the request is answered (false) or handed the turn (true). */
    private boolean awaitTurn(String key, Waiter self) {
        long deadline = System.nanoTime() + patienceNanos;
        boolean interrupted = false;
        try {
            while (!self.answered()) {
                if (self.turn) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    LockSupport.parkNanos(this, left);
                } else if (leave(key, self)) {
                    // Still in line after the whole patience: never sent, so nothing was counted.
                    self.outcome = SlidingLogTransactions.Outcome.contended(TimeUnit.NANOSECONDS.toMicros(patienceNanos), 0);
                    contended(1);
                } else {
                    // Taken into a transaction just now, or handed the turn: either comes, bounded by the timeouts.
                    LockSupport.park(this);
                }
                // Like a blocking socket read, a decision is not abandoned halfway for an interrupt.
                interrupted |= Thread.interrupted();
            }
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean leave(String key, Waiter self) {
        boolean[] left = new boolean[1];
        lines.computeIfPresent(key, (k, line) -> {
            left[0] = line.remove(self);
            return line;
        });
        return left[0];
    }

    /**
     * With the key's turn: decides this request and those of the same rule waiting behind it in one
     * transaction, answers each, and hands the turn to the oldest still waiting, or ends the line.
     */
    private void lead(SlidingLogTransactions.Sessions sessions, String key, Waiter self) {
        List<Waiter> batch = new ArrayList<>();
        batch.add(self);
        lines.computeIfPresent(key, (k, line) -> {
            for (Iterator<Waiter> waiting = line.iterator(); waiting.hasNext() && batch.size() < MAX_BATCH; ) {
                Waiter next = waiting.next();
                if (next.sameRule(self)) {
                    waiting.remove();
                    batch.add(next);
                }
            }
            return line;
        });
        try {
            long[] permits = new long[batch.size()];
            for (int i = 0; i < permits.length; i++) {
                permits[i] = batch.get(i).permits;
            }
            SlidingLogTransactions.Outcome[] outcomes = SlidingLogTransactions.decide(sessions, key, permits,
                    self.limit, self.windowMicros, patienceNanos);
            if (outcomes[0].contended) {
                contended(outcomes.length);
            }
            for (int i = 0; i < outcomes.length; i++) {
                batch.get(i).outcome = outcomes[i];
            }
        } catch (RuntimeException e) {
            for (Waiter waiter : batch) {
                waiter.failure = e;
            }
        } finally {
            for (Waiter waiter : batch) {
                if (!waiter.answered()) {
                    waiter.failure = new RedisFailureException("a sliding-log decision made with others was never "
                            + "answered", null);
                }
                if (waiter != self) {
                    LockSupport.unpark(waiter.thread);
                }
            }
            handOn(key);
        }
    }

    private void handOn(String key) {
        Waiter[] next = new Waiter[1];
        lines.compute(key, (k, line) -> {
            next[0] = line == null ? null : line.poll();
            if (next[0] == null) {
                return null;
            }
            next[0].turn = true;
            return line;
        });
        if (next[0] != null) {
            LockSupport.unpark(next[0].thread);
        }
    }

    private void contended(int requests) {
        long denials = contended.addAndGet(requests);
        if (contentionLog.due()) {
            LOG.warn("Redis at {} [TRANSACTION_CONTENTION]: under transport=transaction, {} sliding-log requests so far"
                    + " were denied without being decided, as they could not be decided within {}: other nodes kept"
                    + " changing the same client's log, or one client sent more requests at once than Redis could"
                    + " decide meanwhile. They were not counted, and were told to retry after {}.", where, denials,
                    Durations.format(Duration.ofNanos(patienceNanos)), Durations.format(Duration.ofNanos(patienceNanos)));
        }
    }
}
