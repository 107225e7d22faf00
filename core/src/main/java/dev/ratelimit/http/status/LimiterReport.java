package dev.ratelimit.http.status;

import dev.ratelimit.Overrides;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.RecentActivity;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.Immutable;
import java.util.List;

/**
 * One limiter of a policy as the page shows it: the policy's own, or a tier's. Everything is read
 * from this JVM, never from Redis, so a policy whose Redis is down still has its page.
 */
final class LimiterReport {
    final String name;
    /** The tier's name, or null for the policy's own limiter. */
    final String tier;
    final List<Rule> rules;
    final long effectiveLimit;
    /** The live limit override, or -1; only the policy's own limiter takes overrides. */
    final long limitOverride;
    /** The live enforce override, or null. */
    final Boolean enforceOverride;
    final String overrideOrigin;
    final boolean effectiveEnforce;
    final RateLimiterStats stats;
    final RecentActivity recent;

    LimiterReport(RateLimiter limiter, String tier, boolean configuredEnforce) {
        this.name = limiter.policyName();
        this.tier = tier;
        this.rules = Immutable.copyOf(limiter.rules());
        this.effectiveLimit = limiter.effectiveRules().get(0).limit();
        Overrides overrides = limiter.overrides();
        // As last read: the page must not wait on Redis for them.
        this.limitOverride = tier == null ? overrides.limit() : -1;
        this.enforceOverride = tier == null ? overrides.enforce() : null;
        this.overrideOrigin = tier == null && overrides.origin() != null ? overrides.origin() : "";
        this.effectiveEnforce = enforceOverride != null ? enforceOverride : configuredEnforce;
        this.stats = limiter.stats();
        this.recent = limiter.recentActivity();
    }

    /** The eviction row: the finding, else the policy read and what was evicted, else why it is unknown. */
    String eviction() {
        if (stats.redisEviction() != null) {
            return stats.redisEviction();
        }
        if ("unknown".equals(stats.redisMaxmemoryPolicy())) {
            return "unknown: Redis has not said whether it may evict the limiter's keys (the log says why)";
        }
        long evicted = stats.redisEvictedKeys();
        return "maxmemory-policy " + stats.redisMaxmemoryPolicy() + ", " + (evicted < 0 ? "evicted keys unknown"
                : evicted == 0 ? "no key evicted since start" : evicted + " keys evicted since start");
    }

    /**
     * The server row: which server holds the keys, else why it may be unknown. No pointer to the log:
     * a user that may run only some INFO sections is not worth a line there.
     */
    String server() {
        String server = stats.redisServer();
        return known(server) != null ? server
                : "unknown: not read yet, or the user the limiter connects as may not run INFO server";
    }

    /** A value Redis reported, or null (JSON's null) while it is {@code unknown}. */
    static String known(String reported) {
        return "unknown".equals(reported) ? null : reported;
    }

    boolean overridden() {
        return limitOverride > 0 || enforceOverride != null;
    }

    /** The live overrides, as a person reads them ({@code limit 50 enforce false}), or {@code none}. */
    String overrides() {
        return !overridden() ? "none" : ((limitOverride > 0 ? "limit " + limitOverride + " " : "")
                + (enforceOverride != null ? "enforce " + enforceOverride : "")).trim();
    }
}
