package dev.ratelimit.http.pipeline;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This node's places for the requests of one policy that may wait for their turn ({@code maxDelay}):
 * {@code maxDelayed} in all, each held from before the decision (a decision in flight may end in a
 * wait) until the wait is over.
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

    /** Counts a decision that admitted a request for an instant ahead. */
    void delayed() {
        delayed.incrementAndGet();
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
