package dev.ratelimit.http.status;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.RecentActivity;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.HttpText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/** The report as JSON: the page's data, for scripts and monitoring. Field names are documented in README. */
final class JsonStatusPage {
    private final StringBuilder out = new StringBuilder(8192);

    private JsonStatusPage() {
    }

    static String render(StatusReport report) {
        return new JsonStatusPage().report(report).out.toString();
    }

    private JsonStatusPage report(StatusReport report) {
        out.append("{\"webapp\":").append(HttpText.jsonQuoted(report.webapp))
                .append(",\"generatedAt\":").append(HttpText.jsonQuoted(report.generatedAt.toString()))
                .append(",\"seconds\":").append(RecentActivity.SECONDS)
                .append(",\"overview\":");
        array(report.overview, this::overview);
        out.append(",\"policies\":");
        array(report.policies, this::policy);
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
        out.append(",\"client\":{\"policies\":");
        array(client.policies, policy -> {
            out.append("{\"name\":").append(HttpText.jsonQuoted(policy.policy));
            if (policy.problem != null) {
                out.append(",\"problem\":").append(HttpText.jsonQuoted(policy.problem)).append('}');
                return;
            }
            out.append(",\"key\":").append(HttpText.jsonQuoted(policy.key));
            // The policy's own limiter first, then each tier's: a peek gives at least the own one.
            List<Map.Entry<String, Decision>> limiters = new ArrayList<>(policy.limiters.entrySet());
            state(limiters.get(0).getValue());
            out.append(",\"tiers\":");
            array(limiters.subList(1, limiters.size()), tier -> {
                out.append("{\"name\":").append(HttpText.jsonQuoted(tier.getKey()));
                state(tier.getValue());
                out.append('}');
            });
            out.append('}');
        });
        out.append('}');
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
        out.append("{\"name\":").append(HttpText.jsonQuoted(row.policy.name))
                .append(",\"level\":").append(HttpText.jsonQuoted(row.policy.verdict.level.cssClass()))
                .append(",\"decisions\":").append(row.decisions)
                .append(",\"denied\":").append(row.policy.denied)
                .append(",\"breaker\":").append(HttpText.jsonQuoted(row.policy.breaker))
                .append(",\"redisLatencyP99Micros\":").append(row.policy.redisP99Micros < 0 ? "null" : Long.toString(row.policy.redisP99Micros))
                .append(",\"overrides\":{\"limit\":").append(own.limitOverride > 0 ? own.limitOverride : "null")
                .append(",\"enforce\":").append(own.enforceOverride).append("}}");
    }

    private void policy(PolicyReport policy) {
        out.append("{\"name\":").append(HttpText.jsonQuoted(policy.name))
                .append(",\"verdict\":{\"level\":").append(HttpText.jsonQuoted(policy.verdict.level.cssClass()))
                .append(",\"text\":").append(HttpText.jsonQuoted(policy.verdict.text)).append('}')
                .append(",\"warnings\":");
        array(policy.warnings, warning -> out.append("{\"code\":").append(HttpText.jsonQuoted(warning.code()))
                .append(",\"text\":").append(HttpText.jsonQuoted(warning.text()))
                .append(",\"requests\":").append(warning.requests()).append('}'));
        out.append(",\"configuration\":").append(HttpText.jsonQuoted(policy.configuration))
                .append(",\"onRedisFailure\":").append(HttpText.jsonQuoted(policy.failurePolicy.toString()))
                .append(",\"enforce\":").append(policy.configuredEnforce)
                .append(",\"waiting\":").append(policy.waiting == null ? "null" : "{\"now\":" + policy.waiting[0]
                        + ",\"delayed\":" + policy.waiting[1] + ",\"refusedQueueFull\":" + policy.waiting[2]
                        + ",\"refusedClientShare\":" + policy.waiting[3] + "}")
                .append(",\"limiters\":");
        array(policy.limiters, this::limiter);
        out.append('}');
    }

    private void limiter(LimiterReport limiter) {
        out.append("{\"name\":").append(HttpText.jsonQuoted(limiter.name))
                .append(",\"tier\":").append(HttpText.jsonQuoted(limiter.tier))
                .append(",\"rules\":");
        array(limiter.rules, rule -> out.append("{\"name\":").append(HttpText.jsonQuoted(rule.name()))
                .append(",\"algorithm\":").append(HttpText.jsonQuoted(rule.algorithm().configName()))
                .append(",\"limit\":").append(rule.limit())
                .append(",\"window\":").append(HttpText.jsonQuoted(HttpPolicy.windowText(rule)))
                .append(",\"cost\":").append(rule.cost()).append('}'));
        out.append(",\"effectiveLimit\":").append(limiter.effectiveLimit)
                .append(",\"effectiveEnforce\":").append(limiter.effectiveEnforce)
                .append(",\"overrides\":{\"limit\":").append(limiter.limitOverride > 0 ? limiter.limitOverride : "null")
                .append(",\"enforce\":").append(limiter.enforceOverride)
                .append(",\"origin\":").append(HttpText.jsonQuoted(limiter.overrideOrigin)).append('}');
        RateLimiterStats stats = limiter.stats;
        out.append(",\"breaker\":").append(HttpText.jsonQuoted(stats.circuitBreakerState()))
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
                .append(",\"redisRefusal\":").append(HttpText.jsonQuoted(stats.redisRefusal()))
                .append(",\"redisEviction\":{\"finding\":").append(HttpText.jsonQuoted(stats.redisEviction()))
                .append(",\"maxmemoryPolicy\":").append(HttpText.jsonQuoted(stats.redisMaxmemoryPolicy()))
                .append(",\"evictedKeys\":").append(stats.redisEvictedKeys() < 0 ? "null"
                        : Long.toString(stats.redisEvictedKeys()))
                .append(",\"server\":").append(HttpText.jsonQuoted(LimiterReport.known(stats.redisServer())))
                .append(",\"nodes\":");
        array(stats.redisServers().entrySet(), node -> out.append("{\"node\":").append(HttpText.jsonQuoted(node.getKey()))
                .append(",\"server\":").append(HttpText.jsonQuoted(LimiterReport.known(node.getValue()))).append('}'));
        out.append('}')
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
                .append(",\"allowedPerSecond\":").append(series(recent.allowedPerSecond()))
                .append(",\"deniedPerSecond\":").append(series(recent.deniedPerSecond()))
                .append(",\"degradedPerSecond\":").append(series(recent.degradedPerSecond()))
                .append(",\"mostDenied\":");
        array(recent.mostDenied(), key -> out.append("{\"key\":").append(HttpText.jsonQuoted(key.key()))
                .append(",\"denials\":").append(key.denials()).append('}'));
        out.append("}}");
    }

    private static String series(long[] values) {
        return LongStream.of(values).mapToObj(Long::toString).collect(Collectors.joining(",", "[", "]"));
    }

    /** {@code [...]}: each item written by {@code write}, a comma between two. */
    private <T> void array(Iterable<T> items, Consumer<T> write) {
        out.append('[');
        String comma = "";
        for (T item : items) {
            out.append(comma);
            write.accept(item);
            comma = ",";
        }
        out.append(']');
    }
}
