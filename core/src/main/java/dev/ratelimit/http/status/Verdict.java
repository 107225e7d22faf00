package dev.ratelimit.http.status;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.internal.http.checks.ConfigWarning;
import dev.ratelimit.internal.support.EvictionFinding;
import java.util.Locale;

/**
 * The one line a person reads first: is this policy limiting, and if not, why. The most serious
 * finding wins: a Redis that is the test kit's map in this JVM (no limit holds across nodes or
 * restarts, whatever else is fine), Redis refusing the limiter's commands (it will not pass by waiting), Redis failing,
 * then a Redis that evicted or may evict the limiter's keys, then what the traffic showed wrong with
 * the configuration (a shared bucket, an untrusted proxy, {@code maxDelay} requests that cannot
 * wait), then a dry run, then no traffic, else working.
 */
final class Verdict {

    /**
     * How the page colours it, from the least to the most wanting a look: idle policies, those that
     * work (they may deny a lot), warnings, alerts; the overview sorts by it.
     */
    enum Level {
        IDLE, OK, WARNING, ALERT;

        String cssClass() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    final Level level;
    final String text;

    private Verdict(Level level, String text) {
        this.level = level;
        this.text = text;
    }

    static Verdict of(PolicyReport policy) {
        long denied = policy.denied;
        long degraded = policy.degraded;
        String breaker = policy.breaker;
        String refusal = policy.refusal;
        long total = policy.allowed + denied;
        if (policy.testOnlyRedis != null) {
            // First: nothing below means anything while the limits live in this JVM only.
            return new Verdict(Level.ALERT, "redisUri=" + policy.testOnlyRedis + " is the test kit's Redis in this JVM: "
                    + "limits are per JVM and lost on restart; never deploy this");
        }
        if (refusal != null) {
            // Before the breaker: the breaker would only say "unreachable", and waiting will not help.
            return new Verdict(Level.ALERT, "Redis refuses the limiter: " + refusal + "; meanwhile "
                    + whatFailureDoes(policy));
        }
        if (!"CLOSED".equals(breaker)) {
            return new Verdict(Level.ALERT, "Redis unreachable: breaker " + breaker + ", " + whatFailureDoes(policy)
                    + (total == 0 ? "" : " (" + degraded + " of " + total + " decisions in the last 5 minutes)"));
        }
        if (degraded > 0) {
            return new Verdict(Level.ALERT, "Redis failing: " + degraded + " of " + total
                    + " decisions in the last 5 minutes were made without it, " + whatFailureDoes(policy));
        }
        RateLimiterStats redis = policy.own().stats;
        if (redis.redisEviction() != null) {
            // After the failures (Redis not deciding at all is worse), before the traffic's findings:
            // a Redis that drops keys undoes every limit of the policy, not one kind of request's.
            return redis.redisEvictedKeys() > 0
                    ? new Verdict(Level.ALERT, "Redis evicted " + redis.redisEvictedKeys() + " keys since start ("
                            + EvictionFinding.CODE + "): " + redis.redisEviction())
                    : new Verdict(Level.WARNING, "Redis may evict the limiter's keys (" + EvictionFinding.CODE + "): "
                            + redis.redisEviction());
        }
        if (!policy.warnings.isEmpty()) {
            ConfigWarning first = policy.warnings.get(0);
            return new Verdict(Level.WARNING, "misconfigured (" + first.code() + "): " + first.text());
        }
        LimiterReport own = policy.own();
        if (!own.effectiveEnforce) {
            String why = own.enforceOverride != null ? "enforce overridden to false (" + own.overrideOrigin + ")"
                    : "enforce=false";
            return new Verdict(Level.WARNING, "dry run: " + why + ", denials are not blocking (" + denied
                    + " would-be denials in the last 5 minutes)");
        }
        if (total == 0) {
            return new Verdict(Level.IDLE, "idle: no requests in the last 5 minutes");
        }
        return new Verdict(Level.OK, "working: Redis decided every request in the last 5 minutes, " + total
                + " decisions, " + percent(denied, total) + " denied");
    }

    private static String whatFailureDoes(PolicyReport policy) {
        FailurePolicy failure = policy.failurePolicy;
        if (failure == FailurePolicy.DENY) {
            return "onRedisFailure=deny answers 503 to every request";
        }
        if (failure == FailurePolicy.LOCAL) {
            return "onRedisFailure=local limits on each node alone at " + policy.localLimit;
        }
        return "onRedisFailure=allow lets requests through unlimited";
    }

    /** A share for a person: whole percents, and "under 1 %" rather than a misleading 0. */
    static String percent(long part, long whole) {
        if (part == 0) {
            return "0 %";
        }
        long percent = Math.round(100.0 * part / whole);
        return percent == 0 ? "under 1 %" : percent + " %";
    }
}
