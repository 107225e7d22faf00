package dev.ratelimit.internal.redis;

import static dev.ratelimit.internal.support.EvictionFinding.CODE;

import dev.ratelimit.internal.support.ServerIdentity;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link EvictionWatch} knows of one master from its readings so far, and the lines it
 * logged about it (see there). Guarded by its watch.
 */
final class MasterEvictions {
    /** The store's category: the finding is the store's, not one limiter's. */
    static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RedisStore");
    static final String WHAT_HAPPENS = "an evicted key forgets a client's count, so that client gets its full"
            + " limit again";

    final String node;
    final String where;
    /** The last reading that said something, or null before one. */
    private MemoryReading read;
    /** What it last said it is; kept while it refuses INFO (or INFO server), which does not change the server. */
    ServerIdentity server = ServerIdentity.UNKNOWN;
    /** {@code evicted_keys} at the last reading that had it, -1 before. */
    long lastEvicted = -1;
    /** Keys evicted since the first reading. */
    long evicted;
    /** The finding last logged at ERROR, empty when none; a new one is logged once. */
    private String logged = "";
    /** The reason last noted at INFO that the master cannot say, empty when none. */
    private String noted = "";

    MasterEvictions(String node, String where) {
        this.node = node;
        this.where = where;
    }

    /** How lines begin: {@code Valkey 9.1.2 at redis://host:6379}. */
    private String named() {
        return server.name() + " at " + where;
    }

    /** Whether its policy lets it evict the limiter's keys: not noeviction, with a memory limit. */
    private boolean mayEvict() {
        return read != null && !read.policy.isEmpty() && !"noeviction".equals(read.policy) && read.maxmemory != 0;
    }

    /** What it is doing to the limits, for the finding; null when nothing. */
    String phrase() {
        String since = " keys since the limiter started";
        if (mayEvict()) {
            return named() + " has maxmemory-policy " + read.policy + " with maxmemory " + read.maxmemory
                    + " bytes" + (evicted > 0 ? " and evicted " + evicted + since : "");
        }
        return evicted > 0 ? named() + " evicted " + evicted + since + " (maxmemory-policy now " + policy() + ")" : null;
    }

    String policy() {
        if (read == null || read.policy.isEmpty()) {
            return "unknown";
        }
        return read.maxmemory == 0 && !"noeviction".equals(read.policy) ? read.policy + " without maxmemory"
                : read.policy;
    }

    /** Takes in what the master said, and logs what is new in it. */
    void take(MemoryReading reading) {
        if (reading.outcome == MemoryReading.Outcome.UNREACHED) {
            // Outages are the decisions' to report; what was read before stays.
            return;
        }
        if (reading.outcome == MemoryReading.Outcome.REFUSED) {
            // Only NOPERM is about INFO; any other refusal (wrong credentials) the decisions meet and
            // report with its own remedy, so advice about INFO would mislead.
            String problem = String.valueOf(reading.problem);
            note(problem.toUpperCase(Locale.ROOT).startsWith("NOPERM")
                    ? "the user the limiter connects as may not run INFO (" + problem + "): grant it +info (ACL SETUSER"
                            + " <user> +info) to have this checked, or make sure maxmemory-policy is noeviction on that "
                            + server.product()
                    : server.product() + " refused INFO (" + problem + ")");
            return;
        }
        if (reading.server.known()) {
            server = reading.server;
        }
        if (reading.evictedKeys >= 0) {
            if (lastEvicted >= 0) {
                evicted += reading.evictedKeys >= lastEvicted ? reading.evictedKeys - lastEvicted : reading.evictedKeys;
            }
            lastEvicted = reading.evictedKeys;
        }
        read = reading;
        if (reading.policy.isEmpty()) {
            note("INFO memory reports no maxmemory_policy: make sure maxmemory-policy is noeviction on that "
                    + server.product());
        } else {
            noted = "";
        }
        log();
    }

    /** Logs the finding at ERROR when it is new: a policy that lets it evict, or its first evictions. */
    private void log() {
        String now = mayEvict() ? read.policy + (evicted > 0 ? ", evicted" : "") : evicted > 0 ? "evicted" : "";
        if (now.equals(logged)) {
            return;
        }
        String before = logged;
        logged = now;
        String product = server.product();
        if (evicted > 0 && !before.endsWith("evicted")) {
            LOG.error("{} [{}]: {} evicted {} keys since the rate limiter started (maxmemory-policy {}), so limits were"
                    + " lost: {}. {}.", named(), CODE, product, evicted, policy(), WHAT_HAPPENS, whatToDo(product));
        } else if (mayEvict()) {
            LOG.error("{} [{}]: maxmemory-policy is {} with maxmemory {} bytes, so {} may evict the rate limiter's keys"
                    + " when its memory is full (every key the limiter writes has a TTL): {}. {}. Checked every {}"
                    + " minutes; the status page shows it.", named(), CODE, read.policy, read.maxmemory, product,
                    WHAT_HAPPENS, whatToDo(product), EvictionWatch.CHECK_INTERVAL.toMinutes());
        } else {
            LOG.info("{} [{}]: maxmemory-policy is now {}: {} no longer evicts the rate limiter's keys{}", named(), CODE,
                    policy(), product, evicted > 0 ? " (it evicted " + evicted + " keys since the limiter started)" : "");
        }
    }

    /** Says once at INFO why the master cannot tell whether it may evict: not an error, but worth knowing. */
    private void note(String reason) {
        if (!reason.equals(noted)) {
            noted = reason;
            LOG.info("{} [{}]: cannot tell whether {} may evict the rate limiter's keys: {}", named(), CODE,
                    server.product(), reason);
        }
    }

    /** What to set, on a server called {@code product} ({@code Redis}, {@code Valkey}, or {@code server} for several). */
    static String whatToDo(String product) {
        return "Set maxmemory-policy noeviction on that " + product + ", or give the limiter a " + product
                + " of its own";
    }
}
