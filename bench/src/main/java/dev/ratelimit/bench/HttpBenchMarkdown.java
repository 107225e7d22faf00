package dev.ratelimit.bench;

import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP section of BENCHMARKS.md, from one {@link HttpBench.Report}: its own run's date, machine,
 * command and generator at the top (an HTTP-only run rewrites this section and leaves the rest of
 * the file alone), the rows for both kinds of traffic, the generators compared, and the HTTP targets.
 */
final class HttpBenchMarkdown {
    /** The heading the section starts with; {@link #splice} finds the section by it. */
    static final String HEADING = "## HTTP";

    private final HttpBench.Report report;

    HttpBenchMarkdown(HttpBench.Report report) {
        this.report = report;
    }

    /** The whole section, from its heading to its targets. */
    String section() {
        StringBuilder md = new StringBuilder();
        md.append('\n').append(HEADING).append("\n\n");
        if (report.command().equals(BenchmarkReport.HTTP_COMMAND)) {
            md.append("Run by `").append(report.command()).append("` from the repository root, which runs the HTTP "
                    + "benchmark alone and rewrites only this section (the full run, `").append(BenchmarkReport.COMMAND)
                    .append("`, rewrites it too). Every figure in this section comes from that one run.\n\n");
        } else {
            md.append("Run as part of the full run; `").append(BenchmarkReport.HTTP_COMMAND).append("` runs it alone "
                    + "and rewrites only this section.\n\n");
        }
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(report.date().format(DateTimeFormatter.RFC_1123_DATE_TIME)).append(" |\n");
        md.append("| machine | ").append(Machine.describe()).append(" |\n");
        md.append("| JDK | ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.version")).append(" |\n");
        md.append("| Redis | ").append(report.redisVersion()).append(" on the same machine, over loopback |\n");
        md.append("| load generator | ").append(report.generator()).append(" |\n");
        md.append("| per row | ").append(report.firstWarmUp().isZero() ? "no warm-up round; "
                : "a warm-up round first, " + seconds(report.firstWarmUp()) + " per row; then ")
                .append(report.rounds()).append(report.rounds() == 1 ? " round" : " rounds").append(" of ")
                .append(seconds(report.warmUp())).append(" warm-up and ").append(seconds(report.measure()))
                .append(" measured per row").append(report.rounds() == 1 ? "" : ", the median round shown")
                .append(" |\n");
        if (!report.rowsRun().equals(HttpRows.ALL.describe())) {
            md.append("| rows | ").append(report.rowsRun()).append(" |\n");
        }
        md.append("| HTTP part took | ").append(minutes(report.took())).append(" |\n");
        md.append(String.format(Locale.ROOT, "| load average (1 min) | %.2f at the start, %.2f at the end |%n%n",
                report.loadAverages()[0], report.loadAverages()[1]));

        md.append("Three kinds of process share the machine's cores: one server JVM for every row (`HttpBenchServer`: "
                + "an embedded Tomcat with one webapp per row, each a servlet that writes `ok` behind the row's filter; "
                + "only the row being measured gets requests), the load generator in a process of its own (")
                .append(HttpLoad.CONNECTIONS).append(" keep-alive connections, closed loop), and Redis; the benchmark's "
                + "own JVM only starts them and reads counters before and after each measured part. The warm-up round "
                + "lets the JIT compile what the rows share before anything is measured: a fresh JVM needs 5–10 s "
                + "of load on two busy cores to settle, which is why every row shares one. The rounds put a burst of "
                + "other work on the machine on one row of one round rather than on every round of one row. Every "
                + "request carries its client in the header `X-Client` (ours keys on it; Tomcat's filter keys on the "
                + "address, one for all) and is admitted: the limits are far above the traffic, and a row with any "
                + "other answer than 200 fails the run.\n\n");
        md.append("Per request: *server CPU* is the server JVM's CPU time over the measured part (Tomcat, the "
                + "filter, its Redis client, JIT and GC), *over no filter* the same minus the no-filter row's: what "
                + "the filter costs the application's CPU. The *floor* row's filter does nothing but one EVALSHA of "
                + "`return 1` per request through a Jedis pool of the same size, then the chain: what one blocking "
                + "round trip from the request's thread costs the node, which no filter that asks Redis on every "
                + "request can go below. *Over the floor* is ours minus that row: what the limiter costs beyond "
                + "that round trip. The *async hand-off* row asks nobody: its filter suspends the request "
                + "(`startAsync`) and one other thread dispatches it back, which is what a filter waiting for Redis "
                + "on a non-blocking connection would spend before any Redis I/O. *Redis CPU* is `INFO cpu`, "
                + "*script calls* are EVALSHA "
                + "and EVAL from `INFO commandstats`, *generator CPU* is the load generator's own. *p50* and *p99* "
                + "are the generator's latencies. *Spread* is (largest − smallest) / median requests/s over the "
                + "row's rounds: how far to trust its requests/s. The anchor is Tomcat's own in-memory "
                + "`RateLimitFilter`, what a limiter that never leaves the JVM costs. The *server span* rows "
                + "(10,000 clients) put the OpenTelemetry SDK ahead of ours, as the Java agent would: a server "
                + "span per request, current while the chain runs, every one sampled and handed to a batch "
                + "processor whose exporter drops it; ours then writes nothing (`tracing=none`), its decision "
                + "on that span (`tracing=opentelemetry`) or on a span of its own (`tracingSpan=own`): "
                + "[Tracing](../docs/tracing.md#what-it-costs).\n");
        if (!report.profiles().isEmpty()) {
            md.append("\nWhere each row's server CPU goes, from a JFR recording of the server after the rounds: [")
                    .append(HttpProfilePage.FILE).append("](").append(HttpProfilePage.FILE).append(").\n");
        }
        for (int clients : new int[] {HttpBench.MANY_CLIENTS, HttpBench.BUSY_CLIENTS}) {
            if (find(HttpBench.NO_FILTER, clients) != null) {
                table(md, clients);
            }
        }
        if (!report.generators().isEmpty()) {
            generators(md);
        }
        targets(md);
        return md.toString();
    }

    private void table(StringBuilder md, int clients) {
        md.append(String.format(Locale.ROOT, "%n### %,d clients%s%n%n", clients,
                clients == HttpBench.BUSY_CLIENTS ? ", each busy and far below its limit" : ""));
        md.append("| | requests/s | × Tomcat's filter | spread | p50 | p99 | server CPU | over no filter "
                + "| over the floor | Redis CPU | script calls | generator CPU |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double anchor = row(HttpBench.TOMCAT_FILTER, clients).requestsPerSecond();
        double bare = row(HttpBench.NO_FILTER, clients).serverMicros();
        double floor = row(HttpBench.FLOOR, clients).serverMicros();
        for (HttpBench.Row row : report.rows()) {
            if (row.clients() != clients) {
                continue;
            }
            // Over the floor only for ours: what the limiter costs beyond the round trip it cannot avoid.
            String overFloor = row.what().startsWith("`")
                    ? String.format(Locale.ROOT, "%+.1f µs", row.serverMicros() - floor) : "";
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.0f %% | %.2f ms | %.2f ms | %.1f µs | %+.1f µs "
                    + "| %s | %.1f µs | %.3f | %s |%n", row.what(), row.requestsPerSecond(),
                    row.requestsPerSecond() / anchor, row.spread() * 100, row.p50Millis(), row.p99Millis(),
                    row.serverMicros(), row.serverMicros() - bare, overFloor, row.redisMicros(), row.redisCalls(),
                    micros(row.generatorMicros())));
        }
    }

    private void generators(StringBuilder md) {
        md.append(String.format(Locale.ROOT, "%n### The load generators%n%nThe no-filter row at %,d clients once "
                + "more with each generator this machine has, one round each, after the rows above. The tables above "
                + "come from the first one the benchmark finds: `wrk` when it is on the PATH (Debian and Ubuntu: "
                + "`apt-get install wrk`), else its own `LoadGenerator` in a JVM of its own; "
                + "`-D%s=wrk` or `=java` picks one. The generator that costs less CPU per request leaves more of the "
                + "shared cores to the server, so it shows more requests/s; server CPU per request should agree.%n%n",
                HttpBench.MANY_CLIENTS, HttpLoad.PROPERTY));
        md.append("| generator | requests/s | p50 | p99 | server CPU | generator CPU |\n|---|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, HttpBench.Row> entry : report.generators().entrySet()) {
            HttpBench.Row row = entry.getValue();
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f ms | %.2f ms | %.1f µs | %s |%n", entry.getKey(),
                    row.requestsPerSecond(), row.p50Millis(), row.p99Millis(), row.serverMicros(),
                    micros(row.generatorMicros())));
        }
        if (report.generators().size() == 1) {
            md.append("\n`wrk` was not on the PATH: the tables above are `LoadGenerator`'s.\n");
        }
    }

    /** The targets whose rows ran: all of them in a full run, those of its rows in a run of some. */
    private void targets(StringBuilder md) {
        md.append("\n### Targets (HTTP)\n\n| target | measured | met? |\n|---|---|:---:|\n");
        for (int clients : new int[] {HttpBench.MANY_CLIENTS, HttpBench.BUSY_CLIENTS}) {
            if (find(HttpBench.NO_FILTER, clients) == null) {
                continue;
            }
            double agreement = row(HttpBench.NO_FILTER, clients).requestsPerSecond()
                    / row(HttpBench.TOMCAT_FILTER, clients).requestsPerSecond();
            line(md, String.format(Locale.ROOT, "no filter within 10 %% of Tomcat's filter, %,d clients (the generator "
                    + "is not the bottleneck)", clients), String.format(Locale.ROOT, "%.2f ×", agreement),
                    Math.abs(agreement - 1) <= 0.10);
        }
        int many = HttpBench.MANY_CLIENTS;
        for (String algorithm : HttpBench.ALGORITHMS) {
            // Issue 41: where every request needs Redis, what the filter costs the application's node.
            HttpBench.Row each = find("`" + algorithm + "`", many);
            if (each == null) {
                continue;
            }
            double added = each.serverMicros() - row(HttpBench.NO_FILTER, many).serverMicros();
            double ratio = each.requestsPerSecond() / row(HttpBench.TOMCAT_FILTER, many).requestsPerSecond();
            line(md, "`" + algorithm + "`, 10,000 clients: ≤ 8 µs server CPU per request over no filter",
                    String.format(Locale.ROOT, "%.1f µs", added), added <= 8);
            line(md, "`" + algorithm + "`, 10,000 clients: ≥ 0.6 × Tomcat's filter requests/s",
                    String.format(Locale.ROOT, "%.2f ×", ratio), ratio >= 0.6);
        }
        int busy = HttpBench.BUSY_CLIENTS;
        for (String algorithm : HttpBench.ALGORITHMS) {
            HttpBench.Row leased = find("`" + algorithm + "`, leases", busy);
            if (leased != null) {
                double ratio = leased.requestsPerSecond() / row(HttpBench.TOMCAT_FILTER, busy).requestsPerSecond();
                line(md, "`" + algorithm + "`, leases, 100 busy clients: ≥ 0.8 × Tomcat's filter requests/s",
                        String.format(Locale.ROOT, "%.2f ×", ratio), ratio >= 0.8);
                line(md, "`" + algorithm + "`, leases, 100 busy clients: ≤ 0.1 script calls per request",
                        String.format(Locale.ROOT, "%.3f", leased.redisCalls()), leased.redisCalls() <= 0.1);
                double added = leased.serverMicros() - row(HttpBench.NO_FILTER, busy).serverMicros();
                line(md, "`" + algorithm + "`, leases, 100 busy clients: ≤ 5 µs server CPU per request over no filter",
                        String.format(Locale.ROOT, "%.1f µs", added), added <= 5);
            }
            HttpBench.Row leasedMany = find("`" + algorithm + "`, leases", many);
            HttpBench.Row plainMany = find("`" + algorithm + "`", many);
            if (leasedMany != null && plainMany != null) {
                double ratio = leasedMany.requestsPerSecond() / plainMany.requestsPerSecond();
                line(md, "`" + algorithm + "`, 10,000 clients: leases ≥ 0.95 × without (no worse)",
                        String.format(Locale.ROOT, "%.2f ×", ratio), ratio >= 0.95);
            }
        }
    }

    /**
     * {@code existing} BENCHMARKS.md with its HTTP section replaced by {@code section} (from its heading
     * to the next heading of the same level) and the hand-written notes at its end replaced by
     * {@code notes}, as they stand now. A file without an HTTP section gets it before the notes, or
     * at the end.
     *
     * @param notes bench/NOTES.md, or null to leave the end of the file as it is
     */
    static String splice(String existing, String section, String notes) {
        String text = existing;
        if (notes != null) {
            int notesAt = text.indexOf("\n" + notes.lines().findFirst().orElse("") + "\n");
            if (notesAt >= 0 && !notes.isBlank()) {
                text = text.substring(0, notesAt);
            }
        }
        int start = text.indexOf("\n" + HEADING + "\n");
        if (start < 0) {
            text = text.stripTrailing() + "\n" + section;
        } else {
            int end = text.indexOf("\n## ", start + 1);
            String before = text.substring(0, start);
            String after = end < 0 ? "" : text.substring(end);
            text = before + section + after;
        }
        if (notes != null && !notes.isBlank()) {
            text = text + "\n" + notes;
        }
        return text;
    }

    private static void line(StringBuilder md, String what, String measured, boolean met) {
        md.append("| ").append(what).append(" | ").append(measured).append(" | ").append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    private HttpBench.Row row(String what, int clients) {
        HttpBench.Row row = find(what, clients);
        if (row == null) {
            throw new IllegalStateException("no HTTP row " + what + " for " + clients + " clients");
        }
        return row;
    }

    /** The row, or null when this run did not load it ({@link HttpRows}). */
    private HttpBench.Row find(String what, int clients) {
        for (HttpBench.Row row : report.rows()) {
            if (row.what().equals(what) && row.clients() == clients) {
                return row;
            }
        }
        return null;
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f µs", value);
    }

    static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s"
                : String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }

    private static String minutes(Duration duration) {
        return String.format(Locale.ROOT, "%d min %02d s", duration.toMinutes(), duration.toSecondsPart());
    }
}
