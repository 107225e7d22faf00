package dev.ratelimit.bench;

import java.util.List;
import java.util.Locale;

/** The HTTP section of BENCHMARKS.md and its targets, from {@link HttpBench}'s rows. */
final class HttpBenchMarkdown {
    private static final String ANCHOR = "Tomcat's RateLimitFilter";
    private static final String NONE = "no filter";

    private final List<HttpBench.Row> rows;

    HttpBenchMarkdown(List<HttpBench.Row> rows) {
        this.rows = rows;
    }

    void section(StringBuilder md) {
        md.append("\n## HTTP\n\n");
        md.append("An embedded Tomcat in the benchmark's JVM, a servlet that writes `ok`, each row on a fresh server. The "
                + "load generator runs in a JVM of its own (`LoadGenerator`: ").append(HttpBench.CONNECTIONS)
                .append(" closed-loop keep-alive connections from 2 NIO threads) on the same two cores, so *server CPU* is the "
                + "server's alone: its JVM's CPU time over the run, per request. *Redis CPU* (`INFO cpu`) and *script "
                + "calls* (`INFO commandstats`, EVALSHA and EVAL) are per request too. Every request is admitted "
                + "(limits far above the traffic). The anchor is Tomcat's own in-memory `RateLimitFilter`: what a "
                + "limiter that never leaves the JVM costs.\n");
        for (int clients : new int[] {HttpBench.MANY_CLIENTS, HttpBench.BUSY_CLIENTS}) {
            md.append(String.format(Locale.ROOT, "%n### %,d clients%s%n%n", clients,
                    clients == HttpBench.BUSY_CLIENTS ? ", each busy and far below its limit" : ""));
            md.append("| | requests/s | × Tomcat's filter | p50 | p99 | server CPU | Redis CPU | script calls | errors |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            double anchor = row(ANCHOR, clients).requestsPerSecond();
            for (HttpBench.Row row : rows) {
                if (row.clients() != clients) {
                    continue;
                }
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f ms | %.2f ms | %.1f µs | %.1f µs | %.3f | %d |%n",
                        row.what(), row.requestsPerSecond(), row.requestsPerSecond() / anchor, row.p50Millis(),
                        row.p99Millis(), row.serverMicros(), row.redisMicros(), row.redisCalls(), row.errors()));
            }
        }
    }

    void targets(StringBuilder md) {
        int busy = HttpBench.BUSY_CLIENTS;
        double anchor = row(ANCHOR, busy).requestsPerSecond();
        double bare = row(NONE, busy).serverMicros();
        for (String algorithm : HttpBench.ALGORITHMS) {
            HttpBench.Row leased = row("`" + algorithm + "`, leases", busy);
            line(md, "`" + algorithm + "`, leases, 100 busy clients: ≥ 0.8 × Tomcat's filter requests/s",
                    String.format(Locale.ROOT, "%.2f ×", leased.requestsPerSecond() / anchor),
                    leased.requestsPerSecond() / anchor >= 0.8);
            line(md, "`" + algorithm + "`, leases, 100 busy clients: ≤ 0.1 script calls per request",
                    String.format(Locale.ROOT, "%.3f", leased.redisCalls()), leased.redisCalls() <= 0.1);
            double added = leased.serverMicros() - bare;
            line(md, "`" + algorithm + "`, leases, 100 busy clients: ≤ 5 µs server CPU per request over no filter",
                    String.format(Locale.ROOT, "%.1f µs", added), added <= 5);
            double many = row("`" + algorithm + "`, leases", HttpBench.MANY_CLIENTS).requestsPerSecond()
                    / row("`" + algorithm + "`", HttpBench.MANY_CLIENTS).requestsPerSecond();
            line(md, "`" + algorithm + "`, 10,000 clients: leases ≥ 0.95 × without (no worse)",
                    String.format(Locale.ROOT, "%.2f ×", many), many >= 0.95);
        }
    }

    private static void line(StringBuilder md, String what, String measured, boolean met) {
        md.append("| ").append(what).append(" | ").append(measured).append(" | ").append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    private HttpBench.Row row(String what, int clients) {
        for (HttpBench.Row row : rows) {
            if (row.what().equals(what) && row.clients() == clients) {
                return row;
            }
        }
        throw new IllegalStateException("no HTTP row " + what + " for " + clients + " clients");
    }
}
