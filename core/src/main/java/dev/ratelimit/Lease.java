package dev.ratelimit;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What an admission by {@link Algorithm#CONCURRENCY} holds in Redis: its lease id under the
 * client's keys. Kept inside its {@link Decision} so that a release can never name another
 * client's keys; released at most once from this JVM (Redis' ZREM would shrug off a second, but
 * it would still cost a round trip).
 */
final class Lease {
    final List<String> keys;
    final String id;
    private final AtomicBoolean released = new AtomicBoolean();

    Lease(List<String> keys, String id) {
        this.keys = keys;
        this.id = id;
    }

    /** True the first time only. */
    boolean release() {
        return released.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return id;
    }
}
