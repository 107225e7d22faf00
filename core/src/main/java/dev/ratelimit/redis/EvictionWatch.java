package dev.ratelimit.redis;

import dev.ratelimit.support.EvictionFinding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * (a user that may not run INFO, an empty policy) at INFO, once. Thread-safe.
 *
 * @see EvictionFinding#CODE
 */
public final class EvictionWatch {
    private static final String CODE = EvictionFinding.CODE;
    /** How often the masters are read again, at most. */
    public static final Duration CHECK_INTERVAL = Duration.ofMinutes(5);
    /**
     * How soon a reading that reached no master is tried again: Redis may have been down while the
     * webapp started. Cheap while it stays down, as a node whose breaker is open is not asked.
     */
    static final Duration RETRY_INTERVAL = Duration.ofSeconds(30);
    /** The store's category: the finding is the store's, not one limiter's. */
    private static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RedisStore");
    private static final String WHAT_HAPPENS = "an evicted key forgets a client's count, so that client gets its full"
            + " limit again";
    private static final String WHAT_TO_DO = "Set maxmemory-policy noeviction on that Redis, or give the limiter a"
            + " Redis of its own";

    private final RedisGateway gateway;
    private final LongSupplier nanoClock;
    private final AtomicLong nextCheck;
    /** Per master's address, guarded by {@code this}. */
    private final Map<String, MasterState> masters = new LinkedHashMap<>();
    /** Keys evicted since start by nodes that are no longer masters (a Cluster failover); guarded by {@code this}. */
    private long formerMastersEvicted;
    private volatile EvictionFinding finding = EvictionFinding.UNKNOWN;

    /** What this store knows of one master, from its readings so far. */
    private static final class MasterState {
        final String where;
        /** The last reading that said something, or null before one. */
        MemoryReading read;
        /** {@code evicted_keys} at the last reading that had it, -1 before. */
        long lastEvicted = -1;
        /** Keys evicted since the first reading. */
        long evicted;
        /** The finding last logged at ERROR, empty when none; a new one is logged once. */
        String logged = "";
        /** The reason last noted at INFO that the master cannot say, empty when none. */
        String noted = "";

        MasterState(String where) {
            this.where = where;
        }

        /** Whether its policy lets it evict the limiter's keys: not noeviction, with a memory limit. */
        boolean mayEvict() {
            return read != null && !read.policy.isEmpty() && !"noeviction".equals(read.policy) && read.maxmemory != 0;
        }

        /** What it is doing to the limits, for the finding; null when nothing. */
        String phrase() {
            String since = " keys since the limiter started";
            if (mayEvict()) {
                return "Redis at " + where + " has maxmemory-policy " + read.policy + " with maxmemory " + read.maxmemory
                        + " bytes" + (evicted > 0 ? " and evicted " + evicted + since : "");
            }
            return evicted > 0 ? "Redis at " + where + " evicted " + evicted + since + " (maxmemory-policy now " + policy()
                    + ")" : null;
        }

        String policy() {
            if (read == null || read.policy.isEmpty()) {
                return "unknown";
            }
            return read.maxmemory == 0 && !"noeviction".equals(read.policy) ? read.policy + " without maxmemory"
                    : read.policy;
        }
    }

    /**
     * @param gateway the store's, which reads every master
     * @param nanoClock {@code System::nanoTime} but in tests
     */
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
            LOG.warn("Cannot tell whether Redis may evict the rate limiter's keys [{}]; asking again in {} minutes: {}",
                    CODE, CHECK_INTERVAL.toMinutes(), e.toString());
        }
    }

    /** @return whether some master answered */
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
            MasterState master = masters.computeIfAbsent(reading.node, node -> new MasterState(reading.where));
            answered |= reading.outcome != MemoryReading.Outcome.UNREACHED;
            take(master, reading);
        }
        for (Map.Entry<String, MasterState> gone : new ArrayList<>(masters.entrySet())) {
            if (!now.contains(gone.getKey())) {
                // No longer a master: its policy no longer matters, what it evicted stays counted.
                formerMastersEvicted += gone.getValue().evicted;
                masters.remove(gone.getKey());
            }
        }
        finding = summary();
        return answered;
    }

    private void take(MasterState master, MemoryReading reading) {
        if (reading.outcome == MemoryReading.Outcome.UNREACHED) {
            // Outages are the decisions' to report; what was read before stays.
            return;
        }
        if (reading.outcome == MemoryReading.Outcome.REFUSED) {
            // Only NOPERM is about INFO; any other refusal (wrong credentials) the decisions meet and
            // report with its own remedy, so advice about INFO would mislead.
            String problem = String.valueOf(reading.problem);
            note(master, problem.toUpperCase(Locale.ROOT).startsWith("NOPERM")
                    ? "the Redis user may not run INFO (" + problem + "): grant it +info (ACL SETUSER <user> +info) to"
                            + " have this checked, or make sure maxmemory-policy is noeviction on that Redis"
                    : "Redis refused INFO (" + problem + ")");
            return;
        }
        if (reading.evictedKeys >= 0) {
            if (master.lastEvicted >= 0) {
                master.evicted += reading.evictedKeys >= master.lastEvicted ? reading.evictedKeys - master.lastEvicted
                        : reading.evictedKeys;
            }
            master.lastEvicted = reading.evictedKeys;
        }
        master.read = reading;
        if (reading.policy.isEmpty()) {
            note(master, "INFO memory reports no maxmemory_policy: make sure maxmemory-policy is noeviction on that"
                    + " Redis");
        } else {
            master.noted = "";
        }
        log(master);
    }

    /** Logs a master's finding at ERROR when it is new: a policy that lets it evict, or its first evictions. */
    private static void log(MasterState master) {
        String now = master.mayEvict() ? master.read.policy + (master.evicted > 0 ? ", evicted" : "")
                : master.evicted > 0 ? "evicted" : "";
        if (now.equals(master.logged)) {
            return;
        }
        String before = master.logged;
        master.logged = now;
        if (master.evicted > 0 && !before.endsWith("evicted")) {
            LOG.error("Redis at {} [{}]: Redis evicted {} keys since the rate limiter started (maxmemory-policy {}), so"
                    + " limits were lost: {}. {}.", master.where, CODE, master.evicted, master.policy(), WHAT_HAPPENS,
                    WHAT_TO_DO);
        } else if (master.mayEvict()) {
            LOG.error("Redis at {} [{}]: maxmemory-policy is {} with maxmemory {} bytes, so Redis may evict the rate"
                    + " limiter's keys when its memory is full (every key the limiter writes has a TTL): {}. {}."
                    + " Checked every {} minutes; the status page shows it.", master.where, CODE, master.read.policy,
                    master.read.maxmemory, WHAT_HAPPENS, WHAT_TO_DO, CHECK_INTERVAL.toMinutes());
        } else {
            LOG.info("Redis at {} [{}]: maxmemory-policy is now {}: Redis no longer evicts the rate limiter's keys{}",
                    master.where, CODE, master.policy(), master.evicted > 0 ? " (it evicted " + master.evicted
                    + " keys since the limiter started)" : "");
        }
    }

    /** Says once at INFO why a master cannot tell whether it may evict: not an error, but worth knowing. */
    private static void note(MasterState master, String reason) {
        if (!reason.equals(master.noted)) {
            master.noted = reason;
            LOG.info("Redis at {} [{}]: cannot tell whether Redis may evict the rate limiter's keys: {}", master.where,
                    CODE, reason);
        }
    }

    private EvictionFinding summary() {
        List<String> phrases = new ArrayList<>();
        Set<String> policies = new LinkedHashSet<>();
        List<String> policyByMaster = new ArrayList<>();
        long evicted = formerMastersEvicted;
        boolean counted = formerMastersEvicted > 0;
        for (MasterState master : masters.values()) {
            String phrase = master.phrase();
            if (phrase != null) {
                phrases.add(phrase);
            }
            policies.add(master.policy());
            policyByMaster.add(master.policy() + " on " + master.where);
            if (master.lastEvicted >= 0) {
                evicted += master.evicted;
                counted = true;
            }
        }
        if (formerMastersEvicted > 0) {
            phrases.add("Redis masters no longer in use evicted " + formerMastersEvicted
                    + " keys since the limiter started");
        }
        String policy = policies.isEmpty() ? "unknown" : policies.size() == 1 ? policies.iterator().next()
                : String.join("; ", policyByMaster);
        String text = phrases.isEmpty() ? null : String.join("; ", phrases) + ": " + WHAT_HAPPENS + ". " + WHAT_TO_DO;
        return new EvictionFinding(text, counted ? evicted : -1, policy);
    }

    @Override
    public String toString() {
        return "EvictionWatch(" + finding + ")";
    }
}
