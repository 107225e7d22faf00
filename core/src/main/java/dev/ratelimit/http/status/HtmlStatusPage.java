package dev.ratelimit.http.status;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.RecentActivity;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.checks.ConfigWarning;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.HttpText;
import java.util.List;
import java.util.Map;

/**
 * The report as one self-contained page: inline CSS, inline SVG, no script, no external resource
 * (so a strict Content-Security-Policy holds). It is well-formed XML as well as HTML, so tests and
 * tools can parse it; every text in it passes through {@link HttpText#markup}.
 */
final class HtmlStatusPage {
    private static final String STYLE = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
            + "h1{font-size:1.4em}h2{font-size:1.2em;margin:1.6em 0 .3em}h3{font-size:1em;margin:1em 0 .3em}"
            + ".verdict{font-weight:600;padding:.4em .6em;border-radius:4px;display:inline-block}"
            + ".ok{background:#dff3df}.idle{background:#eee}.warning{background:#fff1c9}.alert{background:#f9d6d6}"
            + "table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
            + "text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}"
            + "code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{white-space:pre-wrap;"
            + "word-break:break-all}.chart .plot{fill:#fafafa;stroke:#ccc}.chart .allowed{fill:#3a9a3a}"
            + ".chart .denied{fill:#d04040}.chart text{font-size:10px;fill:#555}.note{color:#666}"
            + ".key{color:#3a9a3a}.key.d{color:#d04040}";

    private final StringBuilder out = new StringBuilder(16384);

    private HtmlStatusPage() {
    }

    static String render(StatusReport report) {
        return new HtmlStatusPage().page(report).out.toString();
    }

    private HtmlStatusPage page(StatusReport report) {
        String webapp = report.webapp;
        out.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\"/>\n<meta name=\"robots\" content=\"noindex\"/>\n")
                .append("<title>Rate limits of ").append(HttpText.markup(webapp)).append("</title>\n")
                .append("<style>").append(STYLE).append("</style>\n</head>\n<body>\n")
                .append("<h1>Rate limits of ").append(HttpText.markup(webapp)).append("</h1>\n")
                .append("<p class=\"note\">This server only, at ").append(HttpText.markup(report.generatedAt.toString()))
                .append(". Counts are this node's; other nodes sharing the Redis keep their own. ")
                .append("The same data as JSON: <a href=\"?format=json\">?format=json</a>.</p>\n");
        if (report.client != null) {
            client(report.client);
        }
        if (report.policies.isEmpty()) {
            out.append("<p class=\"verdict idle\">No rate limit policy runs in this webapp.</p>\n");
        } else {
            overview(report.overview);
        }
        for (PolicyReport policy : report.policies) {
            policy(policy);
        }
        out.append("</body>\n</html>\n");
        return this;
    }

    /** One row per policy, worst first, each linking to its section: where the reader starts. */
    private void overview(List<OverviewRow> rows) {
        out.append("<table class=\"overview\">\n<tr><th>Policy</th><th>Verdict</th><th>Decisions, last 5 minutes</th>")
                .append("<th>Denied</th><th>Circuit breaker</th><th>Redis p99</th><th>Live overrides</th></tr>\n");
        for (OverviewRow row : rows) {
            out.append("<tr><td><a href=\"#").append(HttpText.markup(OverviewRow.anchor(row.policy.name))).append("\"><code>")
                    .append(HttpText.markup(row.policy.name)).append("</code></a></td><td class=\"")
                    .append(row.policy.verdict.level.cssClass()).append("\">")
                    .append(HttpText.markup(row.policy.verdict.level.cssClass())).append("</td><td class=\"n\">")
                    .append(row.decisions).append("</td><td class=\"n\">").append(Verdict.percent(row.policy.denied, row.decisions))
                    .append("</td><td>").append(HttpText.markup(row.policy.breaker)).append("</td><td class=\"n\">")
                    .append(row.policy.redisP99Micros < 0 ? "no call yet" : row.policy.redisP99Micros + " µs").append("</td><td>")
                    .append(HttpText.markup(row.policy.own().overrides())).append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    /** The client asked for, first: each policy's key for it and each limiter's state, or why there is none. */
    private void client(ClientLookup client) {
        out.append("<section id=\"client\">\n<h2>One client</h2>\n<p class=\"note\">Read from Redis now, taking "
                + "nothing: what each limiter would answer the client's next request. The client is named by its key "
                + "in each policy; secret parts show as their digests.</p>\n<table>\n<tr><th>Policy</th><th>Limiter</th>"
                + "<th>Client key</th><th>Next request</th><th>Remaining</th><th>Retry after</th><th>Reset</th></tr>\n");
        for (ClientLookup.PolicyState policy : client.policies) {
            if (policy.problem != null) {
                out.append("<tr><td><code>").append(HttpText.markup(policy.policy)).append("</code></td><td colspan=\"6\">")
                        .append(HttpText.markup(policy.problem)).append("</td></tr>\n");
                continue;
            }
            for (Map.Entry<String, Decision> limiter : policy.limiters.entrySet()) {
                Decision state = limiter.getValue();
                out.append("<tr><td><code>").append(HttpText.markup(policy.policy)).append("</code></td><td><code>")
                        .append(HttpText.markup(limiter.getKey())).append("</code></td><td><code>")
                        .append(HttpText.markup(policy.key)).append("</code></td>").append(nextRequest(state))
                        .append("<td class=\"n\">").append(state.remaining()).append(" of ").append(state.limit())
                        .append("</td><td class=\"n\">").append(state.allowed() ? "-" : state.retryAfterSeconds() + " s")
                        .append("</td><td class=\"n\">").append(state.resetAfterSeconds()).append(" s</td></tr>\n");
            }
        }
        out.append("</table>\n</section>\n");
    }

    /** The cell saying what the client's next request meets: a degraded peek is no state of the client's. */
    private static String nextRequest(Decision state) {
        String answer = state.allowed() ? "allowed"
                : state.penalized() ? "denied: in the penalty box for " + state.retryAfterSeconds() + " s" : "denied";
        if (state.degraded()) {
            return "<td class=\"warning\">Redis cannot be asked: onRedisFailure answers " + answer + "</td>";
        }
        return "<td class=\"" + (state.allowed() ? "ok" : "alert") + "\">" + answer + "</td>";
    }

    private void policy(PolicyReport policy) {
        out.append("<section id=\"").append(HttpText.markup(OverviewRow.anchor(policy.name))).append("\">\n<h2>Policy <code>")
                .append(HttpText.markup(policy.name)).append("</code></h2>\n")
                .append("<p class=\"verdict ").append(policy.verdict.level.cssClass()).append("\">")
                .append(HttpText.markup(policy.verdict.text)).append("</p>\n");
        if (policy.warnings.size() > 1) {
            out.append("<ul class=\"warnings\">\n");
            for (ConfigWarning warning : policy.warnings) {
                out.append("<li><code>").append(HttpText.markup(warning.code())).append("</code>: ")
                        .append(HttpText.markup(warning.text())).append("</li>\n");
            }
            out.append("</ul>\n");
        }
        for (LimiterReport limiter : policy.limiters) {
            limiter(policy, limiter);
        }
        if (policy.waiting != null) {
            out.append("<p class=\"waiting\">Waiting for their turn (maxDelay) on this node: ").append(policy.waiting[0])
                    .append(" now, ").append(policy.waiting[1]).append(" delayed since start, ").append(policy.waiting[2])
                    .append(" refused because maxDelayed were waiting, ").append(policy.waiting[3])
                    .append(" refused because their client held its share of the places</p>\n");
        }
        out.append("<h3>Configuration</h3>\n<pre>").append(HttpText.markup(policy.configuration))
                .append("</pre>\n</section>\n");
    }

    private void limiter(PolicyReport policy, LimiterReport limiter) {
        if (policy.limiters.size() > 1) {
            out.append("<h3>").append(limiter.tier == null ? "Requests of no tier" : "Tier <code>"
                    + HttpText.markup(limiter.tier) + "</code>").append(" (<code>").append(HttpText.markup(limiter.name))
                    .append("</code>)</h3>\n");
        }
        RecentActivity recent = limiter.recent;
        long total = recent.allowed() + recent.denied();
        out.append("<table>\n");
        for (Rule rule : limiter.rules) {
            row("Rule" + (limiter.rules.size() > 1 ? " " + rule.name() : ""), rule.algorithm().configName() + ", "
                    + HttpPolicy.quotaText(rule) + (rule.cost() == 1 ? "" : ", cost "
                    + rule.cost()));
        }
        row("In force", "limit " + limiter.effectiveLimit + ", enforce " + limiter.effectiveEnforce);
        if (limiter.tier == null) {
            row("Live overrides", limiter.overridden() ? limiter.overrides() + " set by " + limiter.overrideOrigin
                    : "none");
        }
        row("Last 5 minutes", total + " decisions: " + recent.allowed() + " allowed, " + recent.denied() + " denied ("
                + Verdict.percent(recent.denied(), total) + "), " + recent.degraded() + " without Redis");
        RateLimiterStats stats = limiter.stats;
        row("Since start", stats.allowed() + " allowed, " + stats.denied() + " denied (" + stats.localCacheDenials()
                + " by the local deny cache), " + stats.degraded() + " without Redis, " + stats.redisErrors()
                + " Redis errors, " + stats.redisRefusals() + " Redis refusals" + (stats.leaseAdmissions() == 0 ? "" : "; " + stats.leaseAdmissions()
                + " admitted from quota leases") + (stats.penaltyDenials() == 0 ? "" : "; " + stats.penaltyDenials()
                + " denied by the penalty box, " + stats.penalties() + " clients put in it")
                + (stats.delayedAdmissions() == 0 ? "" : "; " + stats.delayedAdmissions() + " admitted for their turn ahead")
                + (stats.afterCharges() + stats.chargeFailures() == 0 ? "" : "; " + stats.afterCharges()
                + " charged after the response (" + stats.permitsCharged() + " permits), " + stats.chargeFailures()
                + " charges failed") + (stats.refundsKept() == 0 ? "" : "; " + stats.refundsKept()
                + " refunds kept (their permits had left the state, or could not be placed exactly)"));
        row("Circuit breaker", stats.circuitBreakerState());
        row("Redis server", limiter.server());
        row("Redis eviction", limiter.eviction());
        row("Redis latency", stats.redisLatencySamples() == 0 ? "no call yet"
                : "p50 " + stats.redisLatencyP50Micros() + " µs, p90 " + stats.redisLatencyP90Micros() + " µs, p99 "
                + stats.redisLatencyP99Micros() + " µs, max " + stats.redisLatencyMaxMicros() + " µs (last "
                + stats.redisLatencySamples() + " calls)");
        out.append("</table>\n");
        ActivityChart.render(out, limiter.name, recent);
        out.append("<p class=\"note\"><span class=\"key\">■</span> allowed <span class=\"key d\">■</span> denied,"
                + " per second</p>\n");
        if (recent.mostDenied().isEmpty()) {
            out.append("<p class=\"note\">No client was denied in the last 5 minutes.</p>\n");
            return;
        }
        out.append("<table>\n<tr><th>Most denied client key, last 5 minutes</th><th>Denials</th></tr>\n");
        for (RecentActivity.DeniedKey key : recent.mostDenied()) {
            out.append("<tr><td><code>").append(HttpText.markup(key.key())).append("</code></td><td class=\"n\">")
                    .append(key.denials()).append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    private void row(String name, String value) {
        out.append("<tr><th>").append(HttpText.markup(name)).append("</th><td>").append(HttpText.markup(value))
                .append("</td></tr>\n");
    }
}
