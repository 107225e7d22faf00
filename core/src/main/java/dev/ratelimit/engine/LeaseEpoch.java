package dev.ratelimit.engine;

import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

/**
 * The epoch of a node's quota leases ({@link QuotaLeases}): it moves on whenever leases are ended,
 * so that a grant whose call was sent before arrives stale. A grant is checked and installed as one
 * step with respect to the endings: {@link #ifStill} holds the read side of a lock from its look at
 * the epoch to the end of the install, {@link #end} the write side while it moves the epoch on. So
 * an ending comes either after an install, and finds the lease to end, or before the look, which
 * then sees the epoch moved. Checked and installed in two steps, an ending between them left a stale
 * lease live for its whole life. Grants install side by side; admissions never take the lock.
 * Thread-safe.
 */
final class LeaseEpoch {
    private final StampedLock lock = new StampedLock();
    /** Written under the write lock only. */
    private volatile long current;

    /** Read before a call that may take a lease is sent. */
    long current() {
        return current;
    }

    /** Moves the epoch on once the grants being installed are in, for the caller to end them with the rest. */
    void end() {
        long stamp = lock.writeLock();
        try {
            current++;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** What {@code install} returns, run unless the epoch moved on since {@code sentIn}; else null. */
    <T> T ifStill(long sentIn, Supplier<T> install) {
        long stamp = lock.readLock();
        try {
            return current == sentIn ? install.get() : null;
        } finally {
            lock.unlockRead(stamp);
        }
    }
}
