package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntUnaryOperator;

/**
 * Lets the script calls that wait for one Redis node at the same moment travel together, so that
 * Redis reads, parses and answers them in one go: most of a small script call's cost to Redis is
 * that fixed part, not the script.
 *
 * <p>No thread of its own and no added wait. A call that finds fewer than {@code maxInFlight}
 * round trips under way goes at once, on its own, exactly as without this class. A call that finds
 * them all busy joins a queue and parks; when a round trip ends, the thread that made it hands the
 * turn to the oldest waiting call, which sends everything queued by then (up to {@link #MAX_BATCH})
 * as one pipeline and hands each caller its own reply. So calls queue only while Redis is busy with
 * others, and for at most the rest of that round trip; the busier Redis is, the larger the batches.
 *
 * <p>Each caller gets the outcome it would have had alone: a batch is sent as
 * {@link RedisGateway#evalAll} sends one (failures per call, nothing that may have run sent again),
 * and a lone call as {@link RedisGateway#eval}. Thread-safe.
 */
final class CallCoalescer {
    /** Most calls in one pipeline: bounds the wait of the last reply behind the others. */
    static final int MAX_BATCH = 64;

    /** Sends calls for one node: a single call as {@code eval}, several as {@code evalAll}. */
    interface Sender {
        List<Long> one(ScriptCall call);

        List<ScriptCall.Outcome> many(List<ScriptCall> calls);
    }

    private final Sender sender;
    private final int maxInFlight;
    /** The longest a call waits in the queue before it fails, as a wait for a pooled connection would. */
    private final long maxWaitNanos;
    /** The node, for messages. */
    private final String where;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** One more round trip under way, unless {@code maxInFlight} are. */
    private final IntUnaryOperator oneMore;
    private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
    /** Calls that went in a batch of two or more, for tests and the bench. */
    private final AtomicLong coalesced = new AtomicLong();

    /** @param maxWait the longest a call waits for its turn: one still queued then fails without having been sent */
    CallCoalescer(Sender sender, int maxInFlight, Duration maxWait, String where) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
        }
        this.sender = sender;
        this.maxInFlight = maxInFlight;
        this.oneMore = underWay -> underWay < maxInFlight ? underWay + 1 : underWay;
        this.maxWaitNanos = maxWait.toNanos();
        this.where = where;
    }

    /** A call waiting in the queue, and then its outcome. */
    private static final class Waiter {
        final ScriptCall call;
        final Thread thread = Thread.currentThread();
        volatile ScriptCall.Outcome outcome;
        /** Set when a finished round trip hands this call the turn to send the queue. */
        volatile boolean turn;

        Waiter(ScriptCall call) {
            this.call = call;
        }
    }

    /** Runs one call, alone or with others that wait at the same moment, as {@link RedisGateway#eval} would. */
    List<Long> eval(ScriptCall call) {
        if (queue.isEmpty() && take()) {
            // The common case when Redis keeps up: the call goes at once, as without coalescing.
            try {
                return sender.one(call);
            } finally {
                release();
            }
        }
        Waiter self = new Waiter(call);
        queue.add(self);
        // The round trips under way may all have ended between the first look and joining the queue:
        // then nobody would hand the turn on, so look again.
        if (take()) {
            sendQueued();
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + maxWaitNanos;
        ScriptCall.Outcome outcome;
        while ((outcome = self.outcome) == null) {
            if (self.turn) {
                self.turn = false;
                if (take()) {
                    sendQueued();
                }
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(this, left);
            } else if (queue.remove(self)) {
                // Never sent: it fails as a call that found no pooled connection in time would. It may
                // have been handed the turn just now, so the oldest still waiting gets it.
                self.outcome = ScriptCall.Outcome.failed(new RedisFailureException("Redis at " + where + " was busy: no"
                        + " round trip for this call within " + Durations.format(Duration.ofNanos(maxWaitNanos))
                        + " (the pool wait, at least redisTimeout)", null));
                handTurnOn();
            } else {
                // Already sent with others: its round trip is bounded by the timeouts.
                LockSupport.park(this);
            }
            // Like a blocking socket read, a decision is not abandoned halfway for an interrupt;
            // the flag is kept for the caller.
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return outcome.reply();
    }

    long coalescedCalls() {
        return coalesced.get();
    }

    /** Calls waiting for their turn now, for tests. */
    int queued() {
        return queue.size();
    }

    /** Takes a round trip if fewer than {@code maxInFlight} are under way. */
    private boolean take() {
        return inFlight.getAndUpdate(oneMore) < maxInFlight;
    }

    /**
     * With a round trip taken: sends what is queued, hands every caller its outcome, gives the round
     * trip back and the turn on.
     */
    private void sendQueued() {
        List<Waiter> batch = new ArrayList<>();
        Waiter next;
        while (batch.size() < MAX_BATCH && (next = queue.poll()) != null) {
            batch.add(next);
        }
        ScriptCall.Outcome[] outcomes = new ScriptCall.Outcome[batch.size()];
        try {
            send(batch, outcomes);
        } finally {
            release();
            Thread sender = Thread.currentThread();
            for (int i = 0; i < batch.size(); i++) {
                Waiter waiter = batch.get(i);
                waiter.outcome = outcomes[i] != null ? outcomes[i] : ScriptCall.Outcome.failed(
                        new RedisFailureException("a script call sent with others was never answered", null));
                if (waiter.thread != sender) {
                    // The sender's own call is in the batch too: it reads its outcome when this returns, and
                    // an unpark of itself would only make its next park, wherever that is, return at once.
                    LockSupport.unpark(waiter.thread);
                }
            }
        }
    }

    private void send(List<Waiter> batch, ScriptCall.Outcome[] outcomes) {
        if (batch.size() == 1) {
            try {
                outcomes[0] = ScriptCall.Outcome.of(sender.one(batch.get(0).call));
            } catch (RedisFailureException e) {
                outcomes[0] = ScriptCall.Outcome.failed(e);
            }
        } else if (batch.size() > 1) {
            List<ScriptCall> calls = new ArrayList<>(batch.size());
            for (Waiter waiter : batch) {
                calls.add(waiter.call);
            }
            List<ScriptCall.Outcome> answered = sender.many(calls);
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = answered.get(i);
            }
            coalesced.addAndGet(batch.size());
        }
    }

    /**
     * Gives a round trip back; the oldest waiting call, if any, gets the turn to send the queue. It
     * takes the round trip itself, so a busy caller never sends for others after its own answer.
     */
    private void release() {
        inFlight.decrementAndGet();
        handTurnOn();
    }

    private void handTurnOn() {
        Waiter oldest = queue.peek();
        if (oldest != null) {
            oldest.turn = true;
            LockSupport.unpark(oldest.thread);
        }
    }
}
