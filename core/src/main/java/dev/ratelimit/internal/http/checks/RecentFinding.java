package dev.ratelimit.internal.http.checks;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The requests that showed one finding since start, and when the last did: a finding is shown
 * while such requests keep coming within {@link TrafficChecks#RECENT_NANOS}. Thread-safe.
 */
final class RecentFinding {
    private final AtomicLong requests = new AtomicLong();
    private volatile long lastNanos;

    /** Counts a request; the count before it (0: the first, which the caller logs). */
    long count(LongSupplier clock) {
        lastNanos = clock.getAsLong();
        return requests.getAndIncrement();
    }

    /** The requests since start, or 0 when none came in {@link TrafficChecks#RECENT_NANOS}. */
    long recent(LongSupplier clock) {
        long count = requests.get();
        return count == 0 || clock.getAsLong() - lastNanos > TrafficChecks.RECENT_NANOS ? 0 : count;
    }
}
