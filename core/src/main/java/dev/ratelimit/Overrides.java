package dev.ratelimit;

import dev.ratelimit.internal.LuaScript;
import dev.ratelimit.internal.RedisGateway;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A policy's live overrides: a {@code limit} (and, for HTTP policies, {@code enforce}) that an
 * operator sets for every node at once while the applications run, and clears to go back to the
 * configured values. They are kept in Redis, in one hash per policy,
 * {@code <keyPrefix><policyName>:{<policyName>}:overrides} (fields {@code limit}, {@code enforce},
 * {@code origin}), without a TTL: they are operator state and outlive restarts until cleared.
 *
 * <p>Each node reads the hash again at most every {@link #REFRESH_INTERVAL}, on the request path:
 * the first decision after the interval has passed reads it (one extra round trip, for one request
 * per node and interval, before that decision is made); every other decision reads nothing. So a
 * change made on one node applies on every other node from its first decision more than
 * {@code REFRESH_INTERVAL} after the change (an idle node reads it with its next request), and
 * at once on the node that made it. No thread is started. When Redis cannot be asked, the values
 * last read stay in force and the next interval tries again.
 *
 * <p>An override of {@code limit} replaces the limit of the limiter's one rule ({@code gcra}'s
 * burst scales in proportion); limiters of several rules, and {@code token-bucket} and
 * {@code leaky-bucket} (their stored tokens are counted in units of the configured rate), refuse
 * it. With adaptive limits the overridden limit is the one that adapts. Each change a node picks
 * up is logged at INFO. Thread-safe.
 */
public final class Overrides {
    /** How often each node reads the overrides again, at most. */
    public static final Duration REFRESH_INTERVAL = Duration.ofSeconds(2);
    /** The longest origin kept. */
    static final int MAX_ORIGIN_LENGTH = 200;

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);
    private static final LuaScript SCRIPT = LuaScript.load("overrides");
    private static final long INTERVAL_NANOS = REFRESH_INTERVAL.toNanos();
    /** What the script answers for a field an operator wrote by hand that is not a value. */
    private static final long UNREADABLE = -2;

    /** The overrides as last read: one value, swapped whole. */
    static final class State {
        static final State NONE = new State(-1, null, false, "");

        /** -1 when none, {@link #UNREADABLE} when the stored text is not a whole number. */
        final long limit;
        /** Null when none. */
        final Boolean enforce;
        /** Whether the stored enforce is neither true nor false (then it counts as none). */
        final boolean enforceUnreadable;
        final String origin;

        State(long limit, Boolean enforce, boolean enforceUnreadable, String origin) {
            this.limit = limit;
            this.enforce = enforce;
            this.enforceUnreadable = enforceUnreadable;
            this.origin = origin;
        }

        boolean sameAs(State other) {
            return limit == other.limit && Objects.equals(enforce, other.enforce)
                    && enforceUnreadable == other.enforceUnreadable && origin.equals(other.origin);
        }
    }

    private final String policyName;
    private final String key;
    private final RedisGateway gateway;
    /** Throws, with the message a configured value would get, for a limit the rules cannot take. */
    private final LongConsumer limitCheck;
    private final LongSupplier nanoClock;
    private final AtomicLong nextRefresh;
    private volatile State state = State.NONE;
    private volatile boolean refreshFailing;

    Overrides(String keyPrefix, String policyName, RedisGateway gateway, LongConsumer limitCheck,
            LongSupplier nanoClock) {
        this.policyName = policyName;
        // The policy name is the hash tag, as for dimension keys: one slot, whatever the client keys.
        this.key = keyPrefix + policyName + ":{" + policyName + "}:overrides";
        this.gateway = gateway;
        this.limitCheck = limitCheck;
        this.nanoClock = nanoClock;
        // Due at once: a node that starts (or restarts) reads the overrides with its first decision.
        this.nextRefresh = new AtomicLong(nanoClock.getAsLong());
    }

    /** The Redis hash holding the overrides. */
    public String redisKey() {
        return key;
    }

    /** The limit override as last read, or -1 when there is none. */
    public long limit() {
        long limit = state.limit;
        return limit > 0 ? limit : -1;
    }

    /** The enforce override as last read, or null when there is none. */
    public Boolean enforce() {
        return state.enforce;
    }

    /**
     * Whether to enforce: the override if there is one, else the configured value. Reads the
     * overrides first when they are due (see the class comment), so a policy whose decisions all
     * go to other limiters (tiers) still picks up a change.
     */
    public boolean enforce(boolean configured) {
        refreshIfDue();
        Boolean enforce = state.enforce;
        return enforce != null ? enforce : configured;
    }

    /** Who set the overrides last, where and when, as the setter said; empty when there are none. */
    public String origin() {
        return state.origin;
    }

    /**
     * Sets the limit for every node sharing the Redis; this node applies it at once, the others
     * within {@link #REFRESH_INTERVAL} of their next decision.
     *
     * @param origin who sets it, from where and when, e.g. {@code JMX on host-1 at 2024-05-01T10:00:00Z}
     * @throws IllegalArgumentException if the rules cannot take the limit, with the message a
     *     configured limit would get (e.g. {@code limit must be positive, but was 0})
     * @throws IllegalStateException if the limiter's rules take no limit override (several rules,
     *     token-bucket, leaky-bucket)
     * @throws RedisFailureException if Redis cannot be asked; nothing changed
     */
    public void setLimit(long limit, String origin) {
        limitCheck.accept(limit);
        write("set", "limit", Long.toString(limit), origin);
    }

    /**
     * Sets {@code enforce} for every node: {@code false} makes the HTTP policy a dry run (it counts
     * and logs, never blocks), {@code true} makes a dry-run policy block. Only HTTP pipelines read it.
     *
     * @throws RedisFailureException if Redis cannot be asked; nothing changed
     */
    public void setEnforce(boolean enforce, String origin) {
        write("set", "enforce", Boolean.toString(enforce), origin);
    }

    /**
     * Removes every override: the configured values apply again, on this node at once, on the
     * others within {@link #REFRESH_INTERVAL} of their next decision.
     *
     * @throws RedisFailureException if Redis cannot be asked; nothing changed
     */
    public void clear(String origin) {
        write("clear", "", "", origin);
    }

    /**
     * Reads the overrides now, whether due or not.
     *
     * @throws RedisFailureException if Redis cannot be asked; the values last read stay
     */
    public void refresh() {
        apply(read("read", "", "", ""), "");
    }

    /** Reads the overrides when the interval has passed; one caller per node and interval pays the round trip. */
    void refreshIfDue() {
        long now = nanoClock.getAsLong();
        long due = nextRefresh.get();
        if (now - due < 0 || !nextRefresh.compareAndSet(due, now + INTERVAL_NANOS)) {
            return;
        }
        if (!"CLOSED".equals(gateway.circuitState())) {
            // Redis is failing: the breaker's one probe belongs to a decision, which tells whether
            // Redis is back; the overrides can wait for the next interval.
            return;
        }
        try {
            refresh();
            if (refreshFailing) {
                refreshFailing = false;
                log.info("Rate limit policy '{}' reads its overrides from Redis again", policyName);
            }
        } catch (RedisFailureException e) {
            // Decisions report Redis failures themselves; this says once that overrides are frozen.
            if (!refreshFailing) {
                refreshFailing = true;
                log.warn("Rate limit policy '{}' cannot read its overrides from Redis; the values last read "
                        + "stay in force: {}", policyName, e.toString());
            }
        }
    }

    State state() {
        return state;
    }

    private void write(String op, String field, String value, String origin) {
        String by = origin == null || origin.trim().isEmpty() ? "unknown" : origin.trim();
        by = by.length() > MAX_ORIGIN_LENGTH ? by.substring(0, MAX_ORIGIN_LENGTH) : by;
        apply(read(op, field, value, by), by);
        // The change is in force here now: the next read is an interval away.
        nextRefresh.set(nanoClock.getAsLong() + INTERVAL_NANOS);
    }

    private State read(String op, String field, String value, String origin) {
        List<Long> reply = gateway.eval(SCRIPT, Arrays.asList(key), Arrays.asList(op, field, value, origin));
        long enforce = reply.get(1);
        byte[] originBytes = new byte[reply.size() - 2];
        for (int i = 0; i < originBytes.length; i++) {
            originBytes[i] = reply.get(i + 2).byteValue();
        }
        return new State(reply.get(0), enforce < 0 ? null : enforce == 1, enforce == UNREADABLE, new String(originBytes, StandardCharsets.UTF_8));
    }

    /** Takes the state read; logs what changed, once per node. */
    private synchronized void apply(State next, String clearedBy) {
        State last = state;
        if (next.sameAs(last)) {
            return;
        }
        state = next;
        if (next.enforceUnreadable) {
            log.warn("Rate limit policy '{}' ignores the enforce override in {}: it is neither true nor false",
                    policyName, key);
        }
        if (next.sameAs(State.NONE)) {
            log.info("Rate limit policy '{}' overrides cleared{}: the configured values apply again (was limit {}, "
                    + "enforce {}, set by {})", policyName, clearedBy.isEmpty() ? "" : " by " + clearedBy,
                    text(last.limit), text(last.enforce), last.origin);
        } else {
            log.info("Rate limit policy '{}' overrides changed by {}: limit {} -> {}, enforce {} -> {}", policyName,
                    next.origin.isEmpty() ? "(no origin)" : next.origin, text(last.limit), text(next.limit), text(last.enforce), text(next.enforce));
        }
    }

    private static String text(long limit) {
        return limit == UNREADABLE ? "unreadable" : limit < 0 ? "none" : Long.toString(limit);
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
