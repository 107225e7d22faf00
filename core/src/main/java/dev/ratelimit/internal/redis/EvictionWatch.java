package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.EvictionFinding;
import dev.ratelimit.internal.support.ServerIdentity;
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
 * (a user that may not run INFO, an empty policy) at INFO, once. Each line and the finding name the
 * master as the server it said it is ({@code Valkey 9.1.2 at ...}), or Redis while it has not said.
 * Thread-safe.
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

    private final RedisGateway gateway;
    private final LongSupplier nanoClock;
    private final AtomicLong nextCheck;
    /** Per master's address, guarded by {@code this}. */
    private final Map<String, MasterState> masters = new LinkedHashMap<>();
    /** Keys evicted since start by nodes that are no longer masters (a Cluster failover); guarded by {@code this}. */
    private long formerMastersEvicted;
    /** What those former masters were (Redis, Valkey), for the finding; guarded by {@code this}. */
    private final Set<String> formerMastersProducts = new LinkedHashSet<>();
    private volatile EvictionFinding finding = EvictionFinding.UNKNOWN;

    /** What this store knows of one master, from its readings so far. */
    private static final class MasterState {
        final String node;
        final String where;
        /** The last reading that said something, or null before one. */
        MemoryReading read;
        /** What it last said it is; kept while it refuses INFO (or INFO server), which does not change the server. */
        ServerIdentity server = ServerIdentity.UNKNOWN;
        /** {@code evicted_keys} at the last reading that had it, -1 before. */
        long lastEvicted = -1;
        /** Keys evicted since the first reading. */
        long evicted;
        /** The finding last logged at ERROR, empty when none; a new one is logged once. */
        String logged = "";
        /** The reason last noted at INFO that the master cannot say, empty when none. */
        String noted = "";

        MasterState(String node, String where) {
            this.node = node;
            this.where = where;
        }

        /** How lines begin: {@code Valkey 9.1.2 at redis://host:6379}. */
        String named() {
            return server.name() + " at " + where;
        }

        /** {@code Redis} or {@code Valkey}: what "that server" is called in a sentence. */
        String product() {
            return server.product();
        }

        /** Whether its policy lets it evict the limiter's keys: not noeviction, with a memory limit. */
        boolean mayEvict() {
            return read != null && !read.policy.isEmpty() && !"noeviction".equals(read.policy) && read.maxmemory != 0;
        }

        /** What it is doing to the limits, for the finding; null when nothing. */
        String phrase() {
            String since = " keys since the limiter started";
            if (mayEvict()) {
                return named() + " has maxmemory-policy " + read.policy + " with maxmemory " + read.maxmemory
                        + " bytes" + (evicted > 0 ? " and evicted " + evicted + since : "");
            }
            return evicted > 0 ? named() + " evicted " + evicted + since + " (maxmemory-policy now " + policy()
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
            MasterState master = masters.computeIfAbsent(reading.node, node -> new MasterState(node, reading.where));
            answered |= reading.outcome != MemoryReading.Outcome.UNREACHED;
            take(master, reading);
        }
        for (Map.Entry<String, MasterState> gone : new ArrayList<>(masters.entrySet())) {
            if (!now.contains(gone.getKey())) {
                // No longer a master: its policy no longer matters, what it evicted stays counted.
                formerMastersEvicted += gone.getValue().evicted;
                if (gone.getValue().evicted > 0) {
                    formerMastersProducts.add(gone.getValue().product());
                }
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
                    ? "the user the limiter connects as may not run INFO (" + problem + "): grant it +info (ACL SETUSER"
                            + " <user> +info) to have this checked, or make sure maxmemory-policy is noeviction on that "
                            + master.product()
                    : master.product() + " refused INFO (" + problem + ")");
            return;
        }
        if (reading.server.known()) {
            master.server = reading.server;
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
            note(master, "INFO memory reports no maxmemory_policy: make sure maxmemory-policy is noeviction on that "
                    + master.product());
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
        String product = master.product();
        if (master.evicted > 0 && !before.endsWith("evicted")) {
            LOG.error("{} [{}]: {} evicted {} keys since the rate limiter started (maxmemory-policy {}), so limits were"
                    + " lost: {}. {}.", master.named(), CODE, product, master.evicted, master.policy(), WHAT_HAPPENS,
                    whatToDo(product));
        } else if (master.mayEvict()) {
            LOG.error("{} [{}]: maxmemory-policy is {} with maxmemory {} bytes, so {} may evict the rate limiter's keys"
                    + " when its memory is full (every key the limiter writes has a TTL): {}. {}. Checked every {}"
                    + " minutes; the status page shows it.", master.named(), CODE, master.read.policy,
                    master.read.maxmemory, product, WHAT_HAPPENS, whatToDo(product), CHECK_INTERVAL.toMinutes());
        } else {
            LOG.info("{} [{}]: maxmemory-policy is now {}: {} no longer evicts the rate limiter's keys{}",
                    master.named(), CODE, master.policy(), product, master.evicted > 0 ? " (it evicted "
                    + master.evicted + " keys since the limiter started)" : "");
        }
    }

    /** Says once at INFO why a master cannot tell whether it may evict: not an error, but worth knowing. */
    private static void note(MasterState master, String reason) {
        if (!reason.equals(master.noted)) {
            master.noted = reason;
            LOG.info("{} [{}]: cannot tell whether {} may evict the rate limiter's keys: {}", master.named(), CODE,
                    master.product(), reason);
        }
    }

    /** What to set, on a server called {@code product} ({@code Redis}, {@code Valkey}, or {@code server} for several). */
    private static String whatToDo(String product) {
        return "Set maxmemory-policy noeviction on that " + product + ", or give the limiter a " + product
                + " of its own";
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
        for (MasterState master : masters.values()) {
            read.add(new EvictionFinding.Master(master.node, master.where, master.server));
            String phrase = master.phrase();
            if (phrase != null) {
                phrases.add(phrase);
                products.add(master.product());
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
        String text = phrases.isEmpty() ? null : String.join("; ", phrases) + ": " + WHAT_HAPPENS + ". "
                + whatToDo(product(products));
        return new EvictionFinding(text, counted ? evicted : -1, policy, read);
    }

    @Override
    public String toString() {
        return "EvictionWatch(" + finding + ")";
    }
}
