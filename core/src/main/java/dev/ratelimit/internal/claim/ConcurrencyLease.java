package dev.ratelimit.internal.claim;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What an admission by {@code concurrency} holds in Redis: its lease id under the client's keys.
 * Kept inside its {@code Decision} so that a release can never name another client's keys;
 * released at most once from this JVM (Redis' ZREM would shrug off a second, but it would still
 * cost a round trip). Thread-safe.
 */
public final class ConcurrencyLease {
    /** The client's Redis keys the lease is recorded under. */
    public final List<String> keys;
    /** The id no other acquire, on any node, uses. */
    public final String id;
    private final AtomicBoolean released = new AtomicBoolean();

    public ConcurrencyLease(List<String> keys, String id) {
        this.keys = keys;
        this.id = id;
    }

    /** True the first time only: the caller then gives the lease back to Redis. */
    public boolean release() {
        return released.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return id;
    }
}
