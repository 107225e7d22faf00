package dev.ratelimit.internal.http.pipeline;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This node's places for the requests of one policy that may wait for their turn ({@code maxDelay}),
 * and the decision that takes one ({@link #tryAcquire}): {@code maxDelayed} in all, each held from
 * before the decision (a decision in flight may end in a wait) until the wait is over.
 *
 * <p>One client's share is bounded, so that a client sending fast enough cannot leave every other
 * client a 429 where it would have waited: <em>a client takes a place only while it holds fewer
 * places than are still free</em>. One client alone gets at most half of them; a second, half of
 * what is left; and a client that holds none takes a place whenever one is free. The rule needs no
 * setting and adapts to how many clients wait: a single client's burst is still delayed up to half
 * of {@code maxDelayed}.
 *
 * <p>Thread-safe. One entry per client holding a place, so at most {@code maxDelayed} entries, and
 * none once nothing waits.
 */
final class WaitingPlaces {
    /** Whether a place was taken, or why not. */
    enum Outcome {
        TAKEN, FULL, SHARE_HELD
    }

    private final int max;
    /** Places held by each client that holds any; guarded by this. */
    private final Map<String, int[]> heldByClient = new HashMap<>();
    /** Places held in all; guarded by this, read without it by {@link #now}. */
    private volatile int held;
    private final AtomicLong delayed = new AtomicLong();
    private final AtomicLong refusedFull = new AtomicLong();
    private final AtomicLong refusedShare = new AtomicLong();

    WaitingPlaces(int maxDelayed) {
        this.max = maxDelayed;
    }

    /**
     * A try that may admit for an instant ahead, taking a place for it first; the place is kept only
     * by a delayed admission, until its wait is over ({@link #release}). Without a place, the request
     * is decided as if the policy had no {@code maxDelay}.
     */
    Decision tryAcquire(RateLimiter decider, String client, Duration maxDelay) {
        Outcome place = take(client);
        if (place != Outcome.TAKEN) {
            Decision decision = decider.tryAcquire(client);
            if (!decision.allowed()) {
                refused(place);
            }
            return decision;
        }
        Decision decision;
        try {
            decision = decider.tryAcquire(client, maxDelay);
        } catch (RuntimeException e) {
            release(client);
            throw e;
        }
        if (decision.delayed()) {
            delayed.incrementAndGet();
        } else {
            release(client);
        }
        return decision;
    }

    /** Takes a place for the client's next decision, if one is free and the client's share allows it. */
    synchronized Outcome take(String client) {
        if (held >= max) {
            return Outcome.FULL;
        }
        int[] mine = heldByClient.get(client);
        int holds = mine == null ? 0 : mine[0];
        if (holds >= max - held) {
            return Outcome.SHARE_HELD;
        }
        if (mine == null) {
            heldByClient.put(client, new int[] {1});
        } else {
            mine[0]++;
        }
        held++;
        return Outcome.TAKEN;
    }

    /** Gives back a place {@link #take} gave the client: its decision did not wait, or its wait is over. */
    synchronized void release(String client) {
        int[] mine = heldByClient.get(client);
        if (mine == null) {
            // Never taken (a caller's bug): counting it would free a place that is not held.
            return;
        }
        if (--mine[0] == 0) {
            heldByClient.remove(client);
        }
        held--;
    }

    /** Counts a request over the limit refused at once because it found no place ({@code FULL} or {@code SHARE_HELD}). */
    void refused(Outcome why) {
        (why == Outcome.FULL ? refusedFull : refusedShare).incrementAndGet();
    }

    /** Places held now: requests waiting, and decisions that may end in a wait. */
    int now() {
        return held;
    }

    /** Clients holding a place now. */
    synchronized int clients() {
        return heldByClient.size();
    }

    long delayedSoFar() {
        return delayed.get();
    }

    long refusedFullSoFar() {
        return refusedFull.get();
    }

    long refusedShareSoFar() {
        return refusedShare.get();
    }
}
