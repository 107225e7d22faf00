package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Remembers denials in the JVM until their retry-after, so that a client hammering a limit costs
 * no Redis round trip until it could be admitted again. It never denies what Redis would admit:
 * an entry lives as long as the retry-after Redis gave, measured from when the call left ({@link
 * #now()}, read before sending), so never past Redis' instant, which its script computed later;
 * counted from the reply's arrival it would deny for the reply's travel time after Redis admits.
 * Bounded: past {@code maxEntries} expired entries are dropped, and if none has expired new denials
 * are simply not remembered. A full cache is scanned for expired entries only once the earliest of
 * them can have expired, so a flood of new clients into a full cache costs no scan per denial.
 *
 * @param <K> a client and its cost, as the caller keys them
 */
final class LocalDenyCache<K> {
    private final ConcurrentHashMap<K, Entry> entries = new ConcurrentHashMap<>();
    private final int maxEntries;
    private final LongSupplier nanoClock;
    /** When the earliest entry expires, at the soonest: before then a scan frees nothing. */
    private final AtomicLong nextExpiry = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong sweeps = new AtomicLong();

    private static final class Entry {
        final Decision denial;
        /** When the call that brought the denial left: its waits count from then. */
        final long askedAt;
        final long until;

        Entry(Decision denial, long askedAt) {
            this.denial = denial;
            this.askedAt = askedAt;
            this.until = askedAt + denial.retryAfter().toNanos();
        }
    }

    public LocalDenyCache(int maxEntries, LongSupplier nanoClock) {
        this.maxEntries = maxEntries;
        this.nanoClock = nanoClock;
    }

    /** The remembered denial for this client and cost with its waits shortened by the time passed, or null. */
    public Decision get(K key) {
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
        Duration retryAfter = Duration.ofNanos(entry.until - now);
        Duration resetAfter = Duration.ofNanos(Math.max(0, denial.resetAfter().toNanos() - (now - entry.askedAt)));
        // A refusal by the penalty box stays one: the client is still in the box, which this one does not open.
        return denial.penalized()
                ? DecisionAccess.get().penaltyDenial(denial.rule(), denial.remaining(), retryAfter, resetAfter, false)
                : Decision.of(false, denial.rule(), denial.remaining(), retryAfter, resetAfter);
    }

    /** The clock entries are timed by: read it before a call to Redis is sent, and hand it to {@link #put}. */
    public long now() {
        return nanoClock.getAsLong();
    }

    /** Remembers a denial Redis just gave; {@code askedAt} is {@link #now()} before its call was sent. */
    public void put(K key, Decision denial, long askedAt) {
        if (denial.allowed() || denial.degraded() || denial.retryAfter().isZero()) {
            return;
        }
        if (entries.size() >= maxEntries) {
            // The call's instant stands for now: a sweep then frees no entry that has not expired.
            dropExpired(askedAt);
            if (entries.size() >= maxEntries) {
                return;
            }
        }
        Entry entry = new Entry(denial, askedAt);
        entries.put(key, entry);
        nextExpiry.accumulateAndGet(entry.until, Math::min);
    }

    /** Forgets every remembered denial whose key matches (a client reset). */
    public void forget(Predicate<? super K> matches) {
        entries.keySet().removeIf(matches);
    }

    public int size() {
        return entries.size();
    }

    /** How often a full cache was scanned for expired entries. */
    long sweeps() {
        return sweeps.get();
    }

    /** Unless none can have expired yet; one thread at a time scans, and notes when the earliest left expires. */
    private void dropExpired(long now) {
        long due = nextExpiry.get();
        if (now < due || !nextExpiry.compareAndSet(due, Long.MAX_VALUE)) {
            return;
        }
        sweeps.incrementAndGet();
        long earliest = Long.MAX_VALUE;
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (now - entry.until >= 0) {
                it.remove();
            } else {
                earliest = Math.min(earliest, entry.until);
            }
        }
        nextExpiry.accumulateAndGet(earliest, Math::min);
    }
}
