package dev.ratelimit.internal.engine;

import dev.ratelimit.internal.claim.Receipt;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The unused parts of ended quota leases, waiting for a round trip to go back to Redis. Bounded in
 * entries ({@link #MOST}) and in time: a rest not sent by its due time is dropped, and its permits
 * stay counted until their window or refill frees them. The due time is what lets a reset guard
 * ({@code RedisKeys.resetGuard}) live only seconds: no rest of a lease taken before a reset can
 * reach Redis after its guard is gone. Thread-safe.
 */
final class LeaseRests {
    /**
     * Rests waiting at most. {@link QuotaLeases} lends only while the leases it has out and the rests
     * waiting stay below {@link QuotaLeases#MAX_PENDING}; this hard bound leaves room for the asks
     * racing past that check, so that no rest is ever dropped for want of room.
     */
    static final int MOST = 2 * QuotaLeases.MAX_PENDING;

    private final ConcurrentLinkedQueue<Rest> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    /** Keeps a rest to go back by {@code dueNanos} (the nano clock), unless there is no room left. */
    void add(String key, Receipt receipt, long dueNanos) {
        if (size.incrementAndGet() > MOST) {
            size.decrementAndGet();
            return;
        }
        queue.add(new Rest(key, receipt, dueNanos));
    }

    /** At most {@code max} rests to send now, oldest first; those past their due time are dropped on the way. */
    List<Receipt> take(int max, long now) {
        if (size.get() == 0) {
            return Collections.emptyList();
        }
        List<Receipt> taken = new ArrayList<>();
        Rest each;
        while (taken.size() < max && (each = queue.poll()) != null) {
            size.decrementAndGet();
            if (now - each.due <= 0) {
                taken.add(each.receipt);
            }
        }
        return taken;
    }

    /** Drops the rests of one client: its keys were deleted. */
    void forget(String key) {
        for (Rest each : queue) {
            if (each.key.equals(key) && queue.remove(each)) {
                size.decrementAndGet();
            }
        }
    }

    /** Drops every rest. */
    void clear() {
        while (queue.poll() != null) {
            size.decrementAndGet();
        }
    }

    int size() {
        return size.get();
    }

    /** A lease's rest with its client's key (a reset drops it) and the latest it may be sent. */
    private static final class Rest {
        final String key;
        final Receipt receipt;
        final long due;

        Rest(String key, Receipt receipt, long due) {
            this.key = key;
            this.receipt = receipt;
            this.due = due;
        }
    }
}
