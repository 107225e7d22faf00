package dev.ratelimit;

import dev.ratelimit.internal.engine.LiveOverrides;
import java.time.Duration;

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
    public static final Duration REFRESH_INTERVAL = LiveOverrides.REFRESH_INTERVAL;

    private final LiveOverrides live;

    Overrides(LiveOverrides live) {
        this.live = live;
    }

    /** The Redis hash holding the overrides. */
    public String redisKey() {
        return live.redisKey();
    }

    /** The limit override as last read, or -1 when there is none. */
    public long limit() {
        return live.limit();
    }

    /** The enforce override as last read, or null when there is none. */
    public Boolean enforce() {
        return live.enforce();
    }

    /**
     * Whether to enforce: the override if there is one, else the configured value. Reads the
     * overrides first when they are due (see the class comment), so a policy whose decisions all
     * go to other limiters (tiers) still picks up a change.
     */
    public boolean enforce(boolean configured) {
        live.refreshIfDue();
        Boolean enforce = live.enforce();
        return enforce != null ? enforce : configured;
    }

    /** Who set the overrides last, where and when, as the setter said; empty when there are none. */
    public String origin() {
        return live.origin();
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
        live.setLimit(limit, origin);
    }

    /**
     * Sets {@code enforce} for every node: {@code false} makes the HTTP policy a dry run (it counts
     * and logs, never blocks), {@code true} makes a dry-run policy block. Only HTTP pipelines read it.
     *
     * @throws RedisFailureException if Redis cannot be asked; nothing changed
     */
    public void setEnforce(boolean enforce, String origin) {
        live.setEnforce(enforce, origin);
    }

    /**
     * Removes every override: the configured values apply again, on this node at once, on the
     * others within {@link #REFRESH_INTERVAL} of their next decision.
     *
     * @throws RedisFailureException if Redis cannot be asked; nothing changed
     */
    public void clear(String origin) {
        live.clear(origin);
    }

    /**
     * Reads the overrides now, whether due or not.
     *
     * @throws RedisFailureException if Redis cannot be asked; the values last read stay
     */
    public void refresh() {
        live.refresh();
    }

    @Override
    public String toString() {
        return live.toString();
    }
}
