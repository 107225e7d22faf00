package dev.ratelimit.internal.engine;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.engine.OverridesExchange.State;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The live overrides of one policy as this node knows them: one Redis hash read by
 * {@code overrides.lua} (or, under {@code transport=transaction}, by its commands without a
 * script: {@link OverridesExchange}), at most every {@link #REFRESH_INTERVAL} on the decision
 * path, written by the API's {@code Overrides}, and applied by {@link RulesInForce}. Each change
 * this node picks up is logged at INFO; a refusal that waiting will not cure (a Redis user without
 * a permission they need) at ERROR, once, with what to do. Thread-safe.
 */
public final class LiveOverrides {
    /** How often each node reads the overrides again, at most. */
    public static final Duration REFRESH_INTERVAL = Duration.ofSeconds(2);
    /**
     * How long the client-reset mark lives: far longer than a node's reads are apart, so that no
     * node with traffic misses a count, and short enough not to linger. Every read creates it when
     * absent, so its expiry is a change each node sees once a day: each then drops its leases and
     * the denials it remembers, as after a reset.
     */
    static final Duration MARK_LIFETIME = Duration.ofDays(1);
    /**
     * How much later a mark of the same count must expire than the one last read to be a new mark: far
     * more than a read's delay and the nodes' clocks' drift between two reads, far less than {@link
     * #MARK_LIFETIME} (a new mark expires later by the time since the last was made). A restart that
     * loses the mark within this of its making is the one a node does not see as a new mark.
     */
    static final Duration MARK_RENEWED = Duration.ofSeconds(5);
    /** The longest origin kept. */
    static final int MAX_ORIGIN_LENGTH = 200;

    private static final long INTERVAL_NANOS = REFRESH_INTERVAL.toNanos();

    private final String policyName;
    private final String key;
    /** The client-reset mark, in the hash's slot. */
    private final String markKey;
    private final OverridesExchange exchange;
    /** Throws, with the message a configured value would get, for a limit the rules cannot take. */
    private final LongConsumer limitCheck;
    private final LongSupplier nanoClock;
    /** Runs when a read finds a new client-reset mark: some node reset a client, this one cannot know whom. */
    private final Runnable onClientReset;
    private final AtomicLong nextRefresh;
    private volatile State state = State.NONE;
    /** When the mark last read expires, on the node's clock; Long.MIN_VALUE while none was read. */
    private long lastMarkExpires = Long.MIN_VALUE;
    /** Whether a read has answered since the node started: its first mark is its baseline. */
    private boolean markRead;
    private volatile boolean refreshFailing;
    /** Whether a refusal was logged since Redis last answered: one ERROR per refusal, not one per call. */
    private volatile boolean refusalLogged;

    /** @param onClientReset what to forget when any node has reset a client of the policy */
    LiveOverrides(String keyPrefix, String policyName, OverridesExchange exchange,
            LongConsumer limitCheck, LongSupplier nanoClock, Runnable onClientReset) {
        this.policyName = policyName;
        // The policy name is the hash tag, as for dimension keys: one slot, whatever the client keys.
        this.key = keyPrefix + policyName + ":{" + policyName + "}:overrides";
        this.markKey = keyPrefix + policyName + ":{" + policyName + "}:client-reset";
        this.exchange = exchange;
        this.limitCheck = limitCheck;
        this.nanoClock = nanoClock;
        this.onClientReset = onClientReset;
        // Due at once: a node that starts (or restarts) reads the overrides with its first decision.
        this.nextRefresh = new AtomicLong(nanoClock.getAsLong());
    }

    public String redisKey() {
        return key;
    }

    public long limit() {
        long limit = state.limit;
        return limit > 0 ? limit : -1;
    }

    public Boolean enforce() {
        return state.enforce;
    }

    public String origin() {
        return state.origin;
    }

    public void setLimit(long limit, String origin) {
        limitCheck.accept(limit);
        write("set", "limit", Long.toString(limit), origin);
    }

    public void setEnforce(boolean enforce, String origin) {
        write("set", "enforce", Boolean.toString(enforce), origin);
    }

    public void clear(String origin) {
        write("clear", "", "", origin);
    }

    /**
     * Tells every node that a client of the policy was reset: the client-reset mark counts one
     * more, and each node that reads a new count (within {@link #REFRESH_INTERVAL}) forgets the
     * denials it remembers. The mark expires {@link #MARK_LIFETIME} after the first reset it
     * counts; that is one more change, seen the same way.
     */
    void markClientReset() {
        try {
            apply(read("reset", "", Long.toString(MARK_LIFETIME.toMillis()), ""), "");
        } catch (RedisFailureException e) {
            refused(e, "mark a client reset beside");
            throw e;
        }
    }

    public void refresh() {
        apply(read("read", "", "", ""), "");
    }

    /** Reads the overrides when the interval has passed; one caller per node and interval pays the round trip. */
    public void refreshIfDue() {
        long now = nanoClock.getAsLong();
        long due = nextRefresh.get();
        if (now - due < 0 || !nextRefresh.compareAndSet(due, now + INTERVAL_NANOS)) {
            return;
        }
        if (!"CLOSED".equals(exchange.gateway.circuitState())) {
            // Redis is failing: the breaker's one probe belongs to a decision, which tells whether
            // Redis is back; the overrides can wait for the next interval.
            return;
        }
        try {
            refresh();
            if (refreshFailing) {
                refreshFailing = false;
                LimiterLog.LOG.info("Rate limit policy '{}' reads its overrides from Redis again", policyName);
            }
        } catch (RedisFailureException e) {
            // Decisions report Redis failures themselves; this says once that overrides are frozen,
            // and a refusal says what to do, as the decisions' own would.
            if (!refused(e, "read") && !refreshFailing) {
                LimiterLog.LOG.warn("Rate limit policy '{}' cannot read its overrides from Redis; the values last read "
                        + "stay in force: {}", policyName, e.toString());
                // The first failure after reads that worked is often a connection a restart left
                // behind, now dropped: the next decision reads again rather than an interval later,
                // so a restart that lost the data is seen at once (a new client-reset mark).
                nextRefresh.compareAndSet(now + INTERVAL_NANOS, now);
            }
            refreshFailing = true;
        }
    }

    State state() {
        return state;
    }

    /** Whether the last read on the decision path failed (it said so at WARN or ERROR). */
    boolean readFailing() {
        return refreshFailing;
    }

    private void write(String op, String field, String value, String origin) {
        String by = origin == null || origin.trim().isEmpty() ? "unknown" : origin.trim();
        by = by.length() > MAX_ORIGIN_LENGTH ? by.substring(0, MAX_ORIGIN_LENGTH) : by;
        try {
            apply(read(op, field, value, by), by);
        } catch (RedisFailureException e) {
            // The caller (an operator over JMX, or code) gets the failure; the log gets what to do.
            refused(e, op.equals("clear") ? "clear" : "set");
            throw e;
        }
        // The change is in force here now: the next read is an interval away.
        nextRefresh.set(nanoClock.getAsLong() + INTERVAL_NANOS);
    }

    private State read(String op, String field, String value, String origin) {
        // A mark this call makes starts at a number drawn here: two makings (before and after a restart
        // that lost the first) then differ, however close together they come.
        long markStart = 1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 40);
        State read = exchange.exchange(key, markKey, op, field, value, origin, markStart);
        refusalLogged = false;
        return read;
    }

    /**
     * Logs a refusal that waiting will not cure at ERROR with its remedy, once until Redis answers
     * again: the overrides' commands are not the decisions', so their refusal is told apart.
     *
     * @return whether {@code e} was such a refusal
     */
    private boolean refused(RedisFailureException e, String doing) {
        String remedy = e.remedy();
        if (remedy == null) {
            return false;
        }
        if (!refusalLogged) {
            refusalLogged = true;
            LimiterLog.LOG.error("Rate limit policy '{}' cannot {} its live overrides: Redis refuses, and waiting will not "
                    + "fix it: {}. To fix: {}. Until then the overrides last read stay in force", policyName, doing,
                    e.getMessage(), remedy);
        }
        return true;
    }

    /** Takes the state read; logs what changed, once per node; forgets denials after a client reset. */
    private synchronized void apply(State next, String clearedBy) {
        State last = state;
        long markExpires = next.clientResetTtl < 0 ? Long.MIN_VALUE
                : nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(next.clientResetTtl);
        // The same count under a mark that expires much later is a new mark: the old one expired and a
        // reset started another at 1 while this node was not reading (an increment keeps the TTL).
        boolean renewed = next.clientReset == last.clientReset && markExpires != Long.MIN_VALUE
                && lastMarkExpires != Long.MIN_VALUE && markExpires - lastMarkExpires > MARK_RENEWED.toNanos();
        lastMarkExpires = markExpires;
        if (next.clientReset != last.clientReset || renewed) {
            state = next;
            // The first mark a node reads is where it starts from, not news of a reset: every read makes
            // one where none is, and a node's first read may come after its first decisions took leases
            // (another thread paid for the read), which dropping them now would leave counted for nothing.
            if (markRead) {
                onClientReset.run();
            }
        }
        markRead = true;
        if (next.sameAs(last)) {
            return;
        }
        state = next;
        if (next.enforceUnreadable) {
            LimiterLog.LOG.warn("Rate limit policy '{}' ignores the enforce override in {}: it is neither true nor false",
                    policyName, key);
        }
        if (next.sameAs(State.NONE)) {
            LimiterLog.LOG.info("Rate limit policy '{}' overrides cleared{}: the configured values apply again (was limit {}, "
                    + "enforce {}, set by {})", policyName, clearedBy.isEmpty() ? "" : " by " + clearedBy,
                    text(last.limit), text(last.enforce), last.origin);
        } else {
            LimiterLog.LOG.info("Rate limit policy '{}' overrides changed by {}: limit {} -> {}, enforce {} -> {}", policyName,
                    next.origin.isEmpty() ? "(no origin)" : next.origin, text(last.limit), text(next.limit), text(last.enforce), text(next.enforce));
        }
    }

    private static String text(long limit) {
        return limit == OverridesExchange.UNREADABLE ? "unreadable" : limit < 0 ? "none" : Long.toString(limit);
    }

    private static String text(Boolean enforce) {
        return enforce == null ? "none" : enforce.toString();
    }

    @Override
    public String toString() {
        State now = state;
        return "Overrides(" + policyName + ", limit " + text(now.limit) + ", enforce " + text(now.enforce)
                + (now.origin.isEmpty() ? "" : ", by " + now.origin) + ")";
    }
}
