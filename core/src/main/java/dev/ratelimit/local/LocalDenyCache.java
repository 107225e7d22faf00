package dev.ratelimit.local;

import dev.ratelimit.Decision;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers denials in the JVM until their retry-after, so that a client hammering a limit costs
 * no Redis round trip until it could be admitted again. It never denies what Redis would admit:
 * an entry lives exactly as long as the retry-after Redis gave, measured from when the answer
 * arrived (never earlier than Redis computed it). Bounded: past {@code maxEntries} expired entries
 * are dropped, and if none has expired new denials are simply not remembered.
 */
public final class LocalDenyCache {
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final int maxEntries;
    private final LongSupplier nanoClock;

    private static final class Entry {
        final Decision denial;
        final long storedAt;
        final long until;

        Entry(Decision denial, long storedAt) {
            this.denial = denial;
            this.storedAt = storedAt;
            this.until = storedAt + denial.retryAfter().toNanos();
        }
    }

    /**
     * @param maxEntries the most denials remembered at once
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public LocalDenyCache(int maxEntries, LongSupplier nanoClock) {
        this.maxEntries = maxEntries;
        this.nanoClock = nanoClock;
    }

    /** The remembered denial for this client and cost with its waits shortened by the time passed, or null. */
    public Decision get(String key) {
        Entry entry = entries.get(key);
        if (entry == null) {
            return null;
        }
        long now = nanoClock.getAsLong();
        if (now - entry.until >= 0) {
            entries.remove(key, entry);
            return null;
        }
        Decision denial = entry.denial;
        long elapsed = now - entry.storedAt;
        return Decision.of(false, denial.rule(), denial.remaining(), Duration.ofNanos(entry.until - now),
                Duration.ofNanos(Math.max(0, denial.resetAfter().toNanos() - elapsed)));
    }

    /** Remembers a denial Redis just gave. */
    public void put(String key, Decision denial) {
        if (denial.allowed() || denial.degraded() || denial.retryAfter().isZero()) {
            return;
        }
        if (entries.size() >= maxEntries) {
            dropExpired();
            if (entries.size() >= maxEntries) {
                return;
            }
        }
        entries.put(key, new Entry(denial, nanoClock.getAsLong()));
    }

    /** Forgets every remembered denial of keys starting with the prefix (a client reset). */
    public void forget(String keyPrefix) {
        entries.keySet().removeIf(key -> key.startsWith(keyPrefix));
    }

    /** How many denials are remembered. */
    public int size() {
        return entries.size();
    }

    private void dropExpired() {
        long now = nanoClock.getAsLong();
        entries.values().removeIf(entry -> now - entry.until >= 0);
    }
}
