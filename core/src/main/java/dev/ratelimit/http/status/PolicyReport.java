package dev.ratelimit.http.status;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.internal.http.checks.ConfigWarning;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.support.Immutable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One policy of the webapp: its configuration, its limiters (its own, then its tiers') and its verdict. */
final class PolicyReport {
    final String name;
    /** {@link HttpPolicy#toString()}: the effective configuration, password masked. */
    final String configuration;
    final FailurePolicy failurePolicy;
    final Long localLimit;
    final boolean configuredEnforce;
    final List<LimiterReport> limiters;
    /** Over all its limiters, the last five minutes: allowed, denied, decided without Redis. */
    final long allowed;
    final long denied;
    final long degraded;
    /** {@code CLOSED} unless a limiter's breaker is not; then that state. */
    final String breaker;
    /** The first limiter's refusal in force, or null. */
    final String refusal;
    /** The slowest of the limiters' Redis p99, or -1 before any call. */
    final long redisP99Micros;
    /** What the policy's traffic showed wrong with its configuration in the last five minutes. */
    final List<ConfigWarning> warnings;
    final Verdict verdict;
    /** The policy's {@code redisUri} when it is the test kit's Redis in the JVM, else null. */
    final String testOnlyRedis;
    /**
     * With {@code maxDelay}, on this node: requests waiting for their turn now, delayed so far, and
     * refused so far because {@code maxDelayed} were waiting, and because the client held its share of
     * the places; null without maxDelay.
     */
    final long[] waiting;

    PolicyReport(PolicyRuntime runtime) {
        HttpPolicy policy = runtime.policy();
        this.name = policy.policyName();
        this.configuration = policy.toString();
        this.failurePolicy = policy.limiters().failurePolicy();
        this.localLimit = policy.limiters().localLimit();
        this.configuredEnforce = policy.enforce();
        List<LimiterReport> all = new ArrayList<>();
        all.add(new LimiterReport(runtime.limiter(), null, configuredEnforce));
        for (Map.Entry<String, RateLimiter> tier : runtime.pipeline().tierLimiters().entrySet()) {
            all.add(new LimiterReport(tier.getValue(), tier.getKey(), configuredEnforce));
        }
        this.limiters = Immutable.copyOf(all);
        long allowedSum = 0;
        long deniedSum = 0;
        long degradedSum = 0;
        String worstBreaker = "CLOSED";
        String firstRefusal = null;
        long p99 = -1;
        for (LimiterReport limiter : limiters) {
            allowedSum += limiter.recent.allowed();
            deniedSum += limiter.recent.denied();
            degradedSum += limiter.recent.degraded();
            if (!"CLOSED".equals(limiter.stats.circuitBreakerState())) {
                worstBreaker = limiter.stats.circuitBreakerState();
            }
            if (firstRefusal == null) {
                firstRefusal = limiter.stats.redisRefusal();
            }
            if (limiter.stats.redisLatencySamples() > 0) {
                p99 = Math.max(p99, limiter.stats.redisLatencyP99Micros());
            }
        }
        this.allowed = allowedSum;
        this.denied = deniedSum;
        this.degraded = degradedSum;
        this.breaker = worstBreaker;
        this.refusal = firstRefusal;
        this.redisP99Micros = p99;
        this.warnings = runtime.pipeline().checks().warnings();
        this.waiting = runtime.pipeline().waitingCounts();
        this.testOnlyRedis = policy.redisSettings().testOnlyName() == null ? null : policy.redisSettings().redactedUri();
        this.verdict = Verdict.of(this);
    }

    /** The policy's own limiter, which holds its overrides and enforce. */
    LimiterReport own() {
        return limiters.get(0);
    }
}
