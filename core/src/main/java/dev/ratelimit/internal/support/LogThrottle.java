package dev.ratelimit.internal.support;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one log line per interval, for a failure that may repeat on every request: the first
 * thread to ask once the interval has passed logs, the others do not. Thread-safe.
 */
public final class LogThrottle {
    private final long intervalNanos;
    private final AtomicLong lastLog;

    public LogThrottle(long interval, TimeUnit unit) {
        this.intervalNanos = unit.toNanos(interval);
        this.lastLog = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /** Whether to log now; true at most once per interval. */
    public boolean due() {
        long now = System.nanoTime();
        long last = lastLog.get();
        return now - last >= intervalNanos && lastLog.compareAndSet(last, now);
    }
}
