package dev.ratelimit.http.status;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.RecentActivity;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.checks.ConfigWarning;
import java.util.Iterator;
import java.util.Map;

/** The report as JSON: the page's data, for scripts and monitoring. Field names are documented in README. */
final class JsonStatusPage {
    private final StringBuilder out = new StringBuilder(8192);

    private JsonStatusPage() {
    }

    static String render(StatusReport report) {
        return new JsonStatusPage().report(report).out.toString();
    }

    private JsonStatusPage report(StatusReport report) {
        out.append("{\"webapp\":").append(JsonText.quote(report.webapp))
                .append(",\"generatedAt\":").append(JsonText.quote(report.generatedAt.toString()))
                .append(",\"seconds\":").append(RecentActivity.SECONDS)
                .append(",\"overview\":[");
        String comma = "";
        for (OverviewRow row : report.overview) {
            out.append(comma);
            overview(row);
            comma = ",";
        }
        out.append("],\"policies\":[");
        comma = "";
        for (PolicyReport policy : report.policies) {
            out.append(comma);
            policy(policy);
            comma = ",";
        }
        out.append(']');
        if (report.client != null) {
            client(report.client);
        }
        out.append("}\n");
        return this;
    }

    /**
     * {@code "client":{"policies":[...]}}: per policy its key for the client and the state of its own
     * limiter ({@code remaining}, {@code reset}, {@code retryAfter} in seconds, {@code penalty}: seconds
     * left in the penalty box, 0 when not in it), its tiers' under
     * {@code tiers}; or a {@code problem}.
     */
    private void client(ClientLookup client) {
        out.append(",\"client\":{\"policies\":[");
        String comma = "";
        for (ClientLookup.PolicyState policy : client.policies) {
            out.append(comma).append("{\"name\":").append(JsonText.quote(policy.policy));
            comma = ",";
            if (policy.problem != null) {
                out.append(",\"problem\":").append(JsonText.quote(policy.problem)).append('}');
                continue;
            }
            out.append(",\"key\":").append(JsonText.quote(policy.key));
            // The policy's own limiter first, then each tier's: a peek gives at least the own one.
            Iterator<Map.Entry<String, Decision>> limiters = policy.limiters.entrySet().iterator();
            state(limiters.next().getValue());
            out.append(",\"tiers\":[");
            String tierComma = "";
            while (limiters.hasNext()) {
                Map.Entry<String, Decision> tier = limiters.next();
                out.append(tierComma).append("{\"name\":").append(JsonText.quote(tier.getKey()));
                state(tier.getValue());
                out.append('}');
                tierComma = ",";
            }
            out.append("]}");
        }
        out.append("]}");
    }

    private void state(Decision state) {
        out.append(",\"allowed\":").append(state.allowed())
                .append(",\"degraded\":").append(state.degraded())
                .append(",\"limit\":").append(state.limit())
                .append(",\"remaining\":").append(state.remaining())
                .append(",\"retryAfter\":").append(state.allowed() ? 0 : state.retryAfterSeconds())
                .append(",\"penalty\":").append(state.penalized() ? state.retryAfterSeconds() : 0)
                .append(",\"reset\":").append(state.resetAfterSeconds());
    }

    private void overview(OverviewRow row) {
        LimiterReport own = row.policy.own();
        out.append("{\"name\":").append(JsonText.quote(row.policy.name))
                .append(",\"level\":").append(JsonText.quote(row.policy.verdict.level.cssClass()))
                .append(",\"decisions\":").append(row.decisions)
                .append(",\"denied\":").append(row.policy.denied)
                .append(",\"breaker\":").append(JsonText.quote(row.policy.breaker))
                .append(",\"redisLatencyP99Micros\":").append(row.policy.redisP99Micros < 0 ? "null" : Long.toString(row.policy.redisP99Micros))
                .append(",\"overrides\":{\"limit\":").append(own.limitOverride > 0 ? own.limitOverride : "null")
                .append(",\"enforce\":").append(own.enforceOverride).append("}}");
    }

    private void policy(PolicyReport policy) {
        out.append("{\"name\":").append(JsonText.quote(policy.name))
                .append(",\"verdict\":{\"level\":").append(JsonText.quote(policy.verdict.level.cssClass()))
                .append(",\"text\":").append(JsonText.quote(policy.verdict.text)).append('}')
                .append(",\"warnings\":[");
        String separator = "";
        for (ConfigWarning warning : policy.warnings) {
            out.append(separator).append("{\"code\":").append(JsonText.quote(warning.code()))
                    .append(",\"text\":").append(JsonText.quote(warning.text()))
                    .append(",\"requests\":").append(warning.requests()).append('}');
            separator = ",";
        }
        out.append(']')
                .append(",\"configuration\":").append(JsonText.quote(policy.configuration))
                .append(",\"onRedisFailure\":").append(JsonText.quote(policy.failurePolicy.toString()))
                .append(",\"enforce\":").append(policy.configuredEnforce)
                .append(",\"waiting\":").append(policy.waiting == null ? "null" : "{\"now\":" + policy.waiting[0]
                        + ",\"delayed\":" + policy.waiting[1] + ",\"refusedQueueFull\":" + policy.waiting[2]
                        + ",\"refusedClientShare\":" + policy.waiting[3] + "}")
                .append(",\"limiters\":[");
        String comma = "";
        for (LimiterReport limiter : policy.limiters) {
            out.append(comma);
            limiter(limiter);
            comma = ",";
        }
        out.append("]}");
    }

    private void limiter(LimiterReport limiter) {
        out.append("{\"name\":").append(JsonText.quote(limiter.name))
                .append(",\"tier\":").append(JsonText.quote(limiter.tier))
                .append(",\"rules\":[");
        String comma = "";
        for (Rule rule : limiter.rules) {
            out.append(comma).append("{\"name\":").append(JsonText.quote(rule.name()))
                    .append(",\"algorithm\":").append(JsonText.quote(rule.algorithm().configName()))
                    .append(",\"limit\":").append(rule.limit())
                    .append(",\"window\":").append(JsonText.quote(LimiterReport.window(rule)))
                    .append(",\"cost\":").append(rule.cost()).append('}');
            comma = ",";
        }
        out.append("],\"effectiveLimit\":").append(limiter.effectiveLimit)
                .append(",\"effectiveEnforce\":").append(limiter.effectiveEnforce)
                .append(",\"overrides\":{\"limit\":").append(limiter.limitOverride > 0 ? limiter.limitOverride : "null")
                .append(",\"enforce\":").append(limiter.enforceOverride)
                .append(",\"origin\":").append(JsonText.quote(limiter.overrideOrigin)).append('}');
        RateLimiterStats stats = limiter.stats;
        out.append(",\"breaker\":").append(JsonText.quote(stats.circuitBreakerState()))
                .append(",\"sinceStart\":{\"allowed\":").append(stats.allowed())
                .append(",\"denied\":").append(stats.denied())
                .append(",\"degraded\":").append(stats.degraded())
                .append(",\"localCacheDenials\":").append(stats.localCacheDenials())
                .append(",\"leaseAdmissions\":").append(stats.leaseAdmissions())
                .append(",\"penalties\":").append(stats.penalties())
                .append(",\"penaltyDenials\":").append(stats.penaltyDenials())
                .append(",\"delayedAdmissions\":").append(stats.delayedAdmissions())
                .append(",\"afterCharges\":").append(stats.afterCharges())
                .append(",\"permitsCharged\":").append(stats.permitsCharged())
                .append(",\"chargeFailures\":").append(stats.chargeFailures())
                .append(",\"refundsKept\":").append(stats.refundsKept())
                .append(",\"redisErrors\":").append(stats.redisErrors())
                .append(",\"redisRefusals\":").append(stats.redisRefusals()).append('}')
                .append(",\"redisRefusal\":").append(JsonText.quote(stats.redisRefusal()))
                .append(",\"redisEviction\":{\"finding\":").append(JsonText.quote(stats.redisEviction()))
                .append(",\"maxmemoryPolicy\":").append(JsonText.quote(stats.redisMaxmemoryPolicy()))
                .append(",\"evictedKeys\":").append(stats.redisEvictedKeys() < 0 ? "null"
                        : Long.toString(stats.redisEvictedKeys()))
                .append(",\"server\":").append(JsonText.quote(LimiterReport.known(stats.redisServer())))
                .append(",\"nodes\":[");
        comma = "";
        for (Map.Entry<String, String> node : stats.redisServers().entrySet()) {
            out.append(comma).append("{\"node\":").append(JsonText.quote(node.getKey()))
                    .append(",\"server\":").append(JsonText.quote(LimiterReport.known(node.getValue()))).append('}');
            comma = ",";
        }
        out.append("]}")
                .append(",\"redisLatencyMicros\":{\"p50\":").append(stats.redisLatencyP50Micros())
                .append(",\"p90\":").append(stats.redisLatencyP90Micros())
                .append(",\"p99\":").append(stats.redisLatencyP99Micros())
                .append(",\"max\":").append(stats.redisLatencyMaxMicros())
                .append(",\"samples\":").append(stats.redisLatencySamples()).append('}');
        RecentActivity recent = limiter.recent;
        out.append(",\"last5Minutes\":{\"startSecond\":").append(recent.startSecond())
                .append(",\"allowed\":").append(recent.allowed())
                .append(",\"denied\":").append(recent.denied())
                .append(",\"degraded\":").append(recent.degraded())
                .append(",\"allowedPerSecond\":");
        series(recent.allowedPerSecond());
        out.append(",\"deniedPerSecond\":");
        series(recent.deniedPerSecond());
        out.append(",\"degradedPerSecond\":");
        series(recent.degradedPerSecond());
        out.append(",\"mostDenied\":[");
        comma = "";
        for (RecentActivity.DeniedKey key : recent.mostDenied()) {
            out.append(comma).append("{\"key\":").append(JsonText.quote(key.key()))
                    .append(",\"denials\":").append(key.denials()).append('}');
            comma = ",";
        }
        out.append("]}}");
    }

    private void series(long[] values) {
        out.append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(values[i]);
        }
        out.append(']');
    }
}
