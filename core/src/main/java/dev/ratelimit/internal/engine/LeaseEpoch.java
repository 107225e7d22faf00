package dev.ratelimit.internal.engine;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The epoch of a node's quota leases ({@link QuotaLeases}): it moves on whenever leases are ended,
 * so that a grant whose call was sent before arrives stale. A grant is checked and installed as one
 * step with respect to the endings: {@link #ifStill} holds the read side of a lock from its look at
 * the epoch to the end of the install, {@link #end} the write side while it moves the epoch on. So
 * an ending comes either after an install, and finds the lease to end, or before the look, which
 * then sees the epoch moved. Checked and installed in two steps, an ending between them left a stale
 * lease live for its whole life. Grants install side by side; admissions never take the lock. A
 * {@link ReentrantReadWriteLock}: its read side waits behind a writer queued first, so that a steady
 * stream of grants cannot keep an ending (a client reset) out; {@code StampedLock} promises neither
 * way. Thread-safe.
 */
final class LeaseEpoch {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Written under the write lock only. */
    private volatile long current;

    /** Read before a call that may take a lease is sent. */
    long current() {
        return current;
    }

    /** Moves the epoch on once the grants being installed are in, for the caller to end them with the rest. */
    void end() {
        lock.writeLock().lock();
        try {
            current++;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** What {@code install} returns, run unless the epoch moved on since {@code sentIn}; else null. */
    <T> T ifStill(long sentIn, Supplier<T> install) {
        lock.readLock().lock();
        try {
            return current == sentIn ? install.get() : null;
        } finally {
            lock.readLock().unlock();
        }
    }
}
