package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.EvictionFinding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Whether the Redis of one store may evict the limiter's keys. Every key the limiter writes has a
 * TTL, so a Redis with {@code maxmemory} set and any {@code maxmemory-policy} but
 * {@code noeviction} (every {@code volatile-*} and {@code allkeys-*}) may drop them when its memory
 * fills up, and an evicted key forgets a client's count: the client gets its full limit again, and
 * nothing else says so.
 *
 * <p>Every master is read ({@link RedisGateway#readMemory}) when the store's first limiter is built
 * and then at most every {@link #CHECK_INTERVAL}, by the first decision after it (as the live
 * overrides are read), never by a thread of its own: containers report threads a webapp leaves as
 * leaks. That decision pays one round trip per master; no other decision reads anything, and
 * nothing here ever fails one. Keys evicted since the store started are counted per master from
 * its first reading ({@code evicted_keys} only grows; when it falls, the master restarted, and
 * counting goes on from there).
 *
 * <p>A master that may evict is logged at ERROR with the code {@code EVICTING_REDIS}, once per master and
 * finding (again only when its policy changes, or when it first evicts); a master that cannot say
 * (a user that may not run INFO, an empty policy) at INFO, once. Each line and the finding name the
 * master as the server it said it is ({@code Valkey 9.1.2 at ...}), or Redis while it has not said.
 * Thread-safe.
 *
 * @see EvictionFinding#CODE
 */
public final class EvictionWatch {
    /** How often the masters are read again, at most. */
    public static final Duration CHECK_INTERVAL = Duration.ofMinutes(5);
    /**
     * How soon a reading that reached no master is tried again: Redis may have been down while the
     * webapp started. Cheap while it stays down, as a node whose breaker is open is not asked.
     */
    static final Duration RETRY_INTERVAL = Duration.ofSeconds(30);

    private final RedisGateway gateway;
    private final LongSupplier nanoClock;
    private final AtomicLong nextCheck;
    /** Per master's address, guarded by {@code this}. */
    private final Map<String, MasterEvictions> masters = new LinkedHashMap<>();
    /** Keys evicted since start by nodes that are no longer masters (a Cluster failover); guarded by {@code this}. */
    private long formerMastersEvicted;
    /** What those former masters were (Redis, Valkey), for the finding; guarded by {@code this}. */
    private final Set<String> formerMastersProducts = new LinkedHashSet<>();
    private volatile EvictionFinding finding = EvictionFinding.UNKNOWN;

    public EvictionWatch(RedisGateway gateway, LongSupplier nanoClock) {
        this.gateway = gateway;
        this.nanoClock = nanoClock;
        // Due at once: the first limiter built on the store reads while the application starts.
        this.nextCheck = new AtomicLong(nanoClock.getAsLong());
    }

    /** What the masters said when last read; {@link EvictionFinding#UNKNOWN} before. */
    public EvictionFinding finding() {
        return finding;
    }

    /**
     * Reads every master when the interval has passed: one caller per interval pays the round trips,
     * the others read one clock and one volatile field. Never throws.
     */
    public void checkIfDue() {
        long now = nanoClock.getAsLong();
        long due = nextCheck.get();
        if (now - due < 0 || !nextCheck.compareAndSet(due, now + CHECK_INTERVAL.toNanos())) {
            return;
        }
        try {
            if (!check()) {
                nextCheck.compareAndSet(now + CHECK_INTERVAL.toNanos(), now + RETRY_INTERVAL.toNanos());
            }
        } catch (RuntimeException e) {
            // Telling whether Redis may evict is worth a log line, never a failed decision.
            MasterEvictions.LOG.warn("Cannot tell whether Redis may evict the rate limiter's keys [{}]; asking again in"
                    + " {} minutes: {}", EvictionFinding.CODE, CHECK_INTERVAL.toMinutes(), e.toString());
        }
    }

    /** Whether some master answered. */
    private synchronized boolean check() {
        List<MemoryReading> readings = gateway.readMemory();
        if (readings.isEmpty()) {
            // A gateway that reads no INFO: nothing is known, and asking again will not change that.
            return true;
        }
        boolean answered = false;
        Set<String> now = new LinkedHashSet<>();
        for (MemoryReading reading : readings) {
            now.add(reading.node);
            answered |= reading.outcome != MemoryReading.Outcome.UNREACHED;
            masters.computeIfAbsent(reading.node, node -> new MasterEvictions(node, reading.where)).take(reading);
        }
        for (Iterator<MasterEvictions> each = masters.values().iterator(); each.hasNext(); ) {
            MasterEvictions gone = each.next();
            if (!now.contains(gone.node)) {
                // No longer a master: its policy no longer matters, what it evicted stays counted.
                formerMastersEvicted += gone.evicted;
                if (gone.evicted > 0) {
                    formerMastersProducts.add(gone.server.product());
                }
                each.remove();
            }
        }
        finding = summary();
        return answered;
    }

    /** The one product named, or {@code server} when they differ. */
    private static String product(Set<String> products) {
        return products.size() == 1 ? products.iterator().next() : "server";
    }

    private EvictionFinding summary() {
        List<String> phrases = new ArrayList<>();
        Set<String> products = new LinkedHashSet<>(formerMastersProducts);
        Set<String> policies = new LinkedHashSet<>();
        List<String> policyByMaster = new ArrayList<>();
        List<EvictionFinding.Master> read = new ArrayList<>();
        long evicted = formerMastersEvicted;
        boolean counted = formerMastersEvicted > 0;
        for (MasterEvictions master : masters.values()) {
            read.add(new EvictionFinding.Master(master.node, master.where, master.server));
            String phrase = master.phrase();
            if (phrase != null) {
                phrases.add(phrase);
                products.add(master.server.product());
            }
            policies.add(master.policy());
            policyByMaster.add(master.policy() + " on " + master.where);
            if (master.lastEvicted >= 0) {
                evicted += master.evicted;
                counted = true;
            }
        }
        if (formerMastersEvicted > 0) {
            phrases.add(product(formerMastersProducts) + " masters no longer in use evicted " + formerMastersEvicted
                    + " keys since the limiter started");
        }
        String policy = policies.isEmpty() ? "unknown" : policies.size() == 1 ? policies.iterator().next()
                : String.join("; ", policyByMaster);
        String text = phrases.isEmpty() ? null : String.join("; ", phrases) + ": " + MasterEvictions.WHAT_HAPPENS + ". "
                + MasterEvictions.whatToDo(product(products));
        return new EvictionFinding(text, counted ? evicted : -1, policy, read);
    }

    @Override
    public String toString() {
        return "EvictionWatch(" + finding + ")";
    }
}
