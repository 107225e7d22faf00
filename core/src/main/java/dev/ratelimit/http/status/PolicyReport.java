package dev.ratelimit.http.status;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.http.settings.HttpPolicy;
import dev.ratelimit.http.webapp.PolicyRuntime;
import dev.ratelimit.support.Immutable;
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
    final Verdict verdict;

    PolicyReport(PolicyRuntime runtime) {
        HttpPolicy policy = runtime.policy();
        this.name = policy.policyName();
        this.configuration = policy.toString();
        this.failurePolicy = policy.failurePolicy();
        this.localLimit = policy.localLimit();
        this.configuredEnforce = policy.enforce();
        List<LimiterReport> all = new ArrayList<>();
        all.add(new LimiterReport(runtime.limiter(), null, configuredEnforce));
        for (Map.Entry<String, RateLimiter> tier : runtime.pipeline().tierLimiters().entrySet()) {
            all.add(new LimiterReport(tier.getValue(), tier.getKey(), configuredEnforce));
        }
        this.limiters = Immutable.copyOf(all);
        this.verdict = Verdict.of(this);
    }

    /** The policy's own limiter, which holds its overrides and enforce. */
    LimiterReport own() {
        return limiters.get(0);
    }
}
