package dev.ratelimit.http.status;

import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.support.Immutable;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What a webapp's rate limiting is doing, as this JVM knows it: first one row per policy, worst
 * first (verdict, decisions and share denied in the last five minutes, breaker, Redis p99, live
 * overrides); then for every running policy (and each
 * of its tiers) the configuration with the password masked, live overrides, the limit and enforce
 * in force, counts since start, the circuit breaker, Redis latency percentiles, the last five
 * minutes per second, the most-denied client keys (as the limiter was given them: the digests of
 * secret key parts, never the secrets) and a one-line verdict. Nothing is read from Redis, so the
 * report is ready at once even when Redis is down; only a lookup of one client (the page's
 * {@code client} parameter) reads that client's state from Redis, taking nothing. An immutable
 * snapshot.
 *
 * <pre>{@code
 * StatusReport report = StatusReport.of(context.getContextPath(), Webapp.runningPolicies(context::getAttribute));
 * String page = report.html();   // or report.json()
 * }</pre>
 */
public final class StatusReport {
    final String webapp;
    final Instant generatedAt;
    final List<PolicyReport> policies;
    /** The same policies worst first: what the page opens with. */
    final List<OverviewRow> overview;
    /** One client's state in each policy, or null when none was asked for. */
    final ClientLookup client;

    private StatusReport(String webapp, Instant generatedAt, List<PolicyReport> policies, ClientLookup client) {
        this.webapp = webapp;
        this.generatedAt = generatedAt;
        this.policies = Immutable.copyOf(policies);
        this.overview = Immutable.copyOf(OverviewRow.of(policies));
        this.client = client;
    }

    /**
     * Takes the snapshot now.
     *
     * @param contextPath the webapp's context path, empty for the root (shown as {@code /})
     * @param runtimes its running policies, e.g. {@link dev.ratelimit.internal.http.webapp.Webapp#runningPolicies}; shown
     *     sorted by policy name
     */
    public static StatusReport of(String contextPath, List<PolicyRuntime> runtimes) {
        return of(contextPath, runtimes, null);
    }

    /**
     * Takes the snapshot now, and looks one client up in every policy first: its state as each of
     * the policy's limiters would decide its next request, read from Redis without taking anything.
     * The report names the client by its key in each policy (secret parts as their digests), never
     * by {@code clientValue}.
     *
     * @param clientValue what the client sends (an address, a user name, an API key), as
     *     {@link dev.ratelimit.internal.http.webapp.OneClient} takes it; null for no lookup
     * @throws IllegalArgumentException if {@code clientValue} is empty
     */
    public static StatusReport of(String contextPath, List<PolicyRuntime> runtimes, String clientValue) {
        if (clientValue != null && clientValue.isEmpty()) {
            throw new IllegalArgumentException("client must be what a client sends (an address, a user name, an API key),"
                    + " but was empty");
        }
        ClientLookup client = clientValue == null ? null : ClientLookup.of(clientValue, runtimes);
        // By name: containers start filters in an order of their own, and a reader looks a policy up by name.
        List<PolicyReport> policies = runtimes.stream().map(PolicyReport::new)
                .sorted(Comparator.comparing((PolicyReport policy) -> policy.name)).collect(Collectors.toList());
        return new StatusReport(contextPath == null || contextPath.isEmpty() ? "/" : contextPath, Instant.now(),
                policies, client);
    }

    /** One self-contained HTML page (also well-formed XML): inline CSS and SVG, no script. */
    public String html() {
        return HtmlStatusPage.render(this);
    }

    /** The same data as a JSON object (see README for its fields). */
    public String json() {
        return JsonStatusPage.render(this);
    }

    @Override
    public String toString() {
        return "StatusReport(" + webapp + ", " + policies.size() + " policies)";
    }
}
