package dev.ratelimit.bench;

import static dev.ratelimit.bench.BenchmarkReport.ALGORITHMS;
import static dev.ratelimit.bench.BenchmarkReport.COMMAND;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes BENCHMARKS.md from one run's figures: machine, versions, date, command, every raw figure, every
 * ratio, and the targets met or missed.
 */
final class BenchmarkMarkdown {
    private static final List<String> TRAFFIC = List.of("distinct", "distinct-alone", "hot-admitted", "hot-denied",
            "hot-denied-cached");

    private final boolean smoke;
    private final JmhThroughput jmh;
    private final RedisMeasurements measurements;
    /** Findings written by hand about the targets (bench/NOTES.md), appended so a rerun keeps them; may be null. */
    private final Path notes;

    BenchmarkMarkdown(boolean smoke, JmhThroughput jmh, RedisMeasurements measurements, Path notes) {
        this.smoke = smoke;
        this.jmh = jmh;
        this.measurements = measurements;
        this.notes = notes;
    }

    /**
     * The whole report.
     *
     * @param commands    per limiter: {round trips, all commands} per decision
     * @param redisMicros per row: Redis CPU per call in microseconds
     * @param memory      per algorithm: {key name length, bytes after 1 decision, after 100, after 10 of cost 10}
     * @param http        the HTTP section, with its own targets
     * @param coalesced   latency at the middle thread count with coalescing on
     * @param uncoalesced the same with coalescing off
     * @param oneCaller   one caller's decisions per second with coalescing on over off, in interleaved turns
     * @param took        how long the whole run took
     */
    String write(Map<String, double[]> commands, Map<String, Double> redisMicros, Map<String, long[]> memory,
            HttpBenchMarkdown http, CoalescingLatency.Result coalesced,
            CoalescingLatency.Result uncoalesced, double oneCaller, Duration took) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        if (smoke) {
            md.append("**Smoke run: every benchmark ran for a few milliseconds to prove it still works. These numbers "
                    + "mean nothing.**\n\n");
        }
        md.append("Run by `").append(COMMAND).append("` from the repository root (about 25 minutes; it rewrites this "
                + "file). Every figure below comes from that one run, against one local Redis, on one machine; "
                + "compare ratios, not absolute numbers from other runs. `").append(BenchmarkReport.HTTP_COMMAND)
                .append("` runs only the HTTP part (about 13 minutes) and rewrites only its section, which then says "
                + "its own date and machine.\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)).append(" |\n");
        md.append("| machine | ").append(Machine.describe()).append(" |\n");
        md.append("| JDK | ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.version")).append(" |\n");
        md.append("| Redis | ").append(measurements.redisVersion()).append(" on the same machine, over loopback |\n");
        md.append("| JMH | ").append(smoke ? "no fork, no warm-up, 1 × 50 ms" : "1 fork, warm-up 1 × 1 s, measurement 2 × 2 s")
                .append(", throughput; pools of ").append(BenchRedis.POOL_SIZE).append(" connections for everyone |\n");
        md.append("| run time | ").append(took.toSeconds()).append(" s |\n\n");

        double floor16 = jmh.score("floor", jmh.mid());
        md.append("## Decisions per second\n\n");
        md.append("The floor is one EVALSHA of `return 1` with one key through the same kind of Jedis pool: one round "
                + "trip, the most any Redis limiter can do. Ratios are to the floor at the same thread count. "
                + "*Redis CPU* and *client CPU* are per decision at ").append(jmh.mid()).append(" threads: the Redis "
                + "server's system and user time (`INFO cpu`) and the benchmark JVM's process CPU time over each "
                + "measured iteration, divided by its decisions. At scale the shared Redis runs out first, so its CPU "
                + "per decision says how many application nodes one Redis can serve.\n\n");
        md.append("| what | traffic |");
        for (int threads : jmh.threadCounts()) {
            md.append(' ').append(threads).append(" threads | ratio |");
        }
        md.append(" Redis CPU | client CPU |");
        md.append('\n').append("|---|---|");
        jmh.threadCounts().forEach(t -> md.append("---:|---:|"));
        md.append("---:|---:|");
        md.append('\n');
        row(md, "floor: EVALSHA `return 1`", "distinct", "floor");
        row(md, "EVALSHA of one `SET PX`", "distinct", "script set-px");
        for (String algorithm : ALGORITHMS) {
            row(md, "`" + algorithm + "` script alone (bare EVALSHA)", "distinct", "script " + algorithm);
            for (String traffic : TRAFFIC) {
                row(md, "`" + algorithm + "`", traffic.replace("hot-denied-cached", "hot-denied, local deny cache")
                        .replace("distinct-alone", "distinct, coalescing off"), "ours " + algorithm + " " + traffic);
            }
        }
        for (String peer : List.of("bucket4j", "redisson", "naive")) {
            for (String traffic : List.of("distinct", "hot-admitted")) {
                row(md, peerName(peer), traffic, "peer " + peer + " " + traffic);
            }
        }
        md.append("\nTraffic: `distinct` = 10,000 clients round-robin, all admitted; `hot-admitted` = one client, all "
                + "admitted; `hot-denied` = one client over its limit, all denied (local deny cache off unless "
                + "said). Admitted traffic runs under a limit of 10^9 per minute, for ours and the peers alike. Ours "
                + "runs with coalescing on (the default) unless said.\n\n");

        md.append("## Coalescing (").append(jmh.mid()).append(" threads, 10,000 keys)\n\n");
        md.append("With `redisCoalescing` on, decisions that find their Redis node busy travel together: one pipeline, "
                + "one-rule decisions of one algorithm joined into one script call. Off, each decision is a round trip "
                + "and a script call of its own. Same run, same traffic (`distinct`).\n\n");
        md.append("| algorithm | decisions/s on | off | on / off | Redis CPU on | off | on / off | client CPU on | off "
                + "| 1 thread on / off |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String algorithm : ALGORITHMS) {
            String on = "ours " + algorithm + " distinct";
            String off = "ours " + algorithm + " distinct-alone";
            int mid = jmh.mid();
            int one = jmh.threadCounts().get(0);
            md.append("| `").append(algorithm).append("` | ").append(format(jmh.score(on, mid))).append(" | ")
                    .append(format(jmh.score(off, mid))).append(" | ")
                    .append(format(jmh.score(on, mid) / jmh.score(off, mid))).append(" | ")
                    .append(micros(jmh.redisCpu(on, mid))).append(" | ").append(micros(jmh.redisCpu(off, mid)))
                    .append(" | ").append(format(jmh.redisCpu(on, mid) / jmh.redisCpu(off, mid))).append(" | ")
                    .append(micros(jmh.clientCpu(on, mid))).append(" | ").append(micros(jmh.clientCpu(off, mid)))
                    .append(" | ").append(format(jmh.score(on, one) / jmh.score(off, one))).append(" |\n");
        }
        md.append(String.format(Locale.ROOT, "%nLatency of `gcra` decisions, %d closed-loop callers on 10,000 keys, every "
                + "call timed: coalescing on %.0f µs at p50 and %.0f µs at p99 (%,.0f decisions/s), off %.0f µs and "
                + "%.0f µs (%,.0f decisions/s).%n%n", jmh.mid(), coalesced.p50Micros, coalesced.p99Micros,
                coalesced.perSecond, uncoalesced.p50Micros, uncoalesced.p99Micros, uncoalesced.perSecond));
        md.append(String.format(Locale.ROOT, "One caller alone (`gcra`, 10,000 keys), coalescing on and off in ten "
                + "interleaved turns of a second each, so that the machine's drift falls on both: on / off = %.3f. "
                + "(The *1 thread* column compares two JMH cells run minutes apart; a lone caller takes the same "
                + "path either way, so it shows that drift.)%n%n", oneCaller));

        md.append("## Ours against the peers (").append(jmh.mid()).append(" threads)\n\n");
        md.append("| comparison | traffic | ours | peer | ours / peer |\n|---|---|---:|---:|---:|\n");
        comparison(md, "`token-bucket` vs bucket4j token bucket", "token-bucket", "bucket4j", "distinct");
        comparison(md, "`token-bucket` vs bucket4j token bucket", "token-bucket", "bucket4j", "hot-admitted");
        comparison(md, "`token-bucket` vs Redisson RRateLimiter", "token-bucket", "redisson", "distinct");
        comparison(md, "`token-bucket` vs Redisson RRateLimiter", "token-bucket", "redisson", "hot-admitted");
        comparison(md, "`sliding-log` vs naive four-call sorted set", "sliding-log", "naive", "distinct");
        comparison(md, "`sliding-log` vs naive four-call sorted set", "sliding-log", "naive", "hot-admitted");

        md.append("\n## Where the distance to the floor comes from (").append(jmh.mid()).append(" threads)\n\n");
        md.append("*Redis CPU* is what `INFO commandstats` charges to EVALSHA per call (8 callers, 10,000 keys): "
                + "the script alone, without reading the request or writing the reply, which cost every row alike. "
                + "*Script alone* runs the algorithm's script by a bare EVALSHA, with the arguments our limiter sends; "
                + "*ours* is the same script through `RateLimiter`. `SET PX` is the least a limiter must do: one "
                + "write with an expiry.\n\n");
        md.append("| what | Redis CPU per call | script alone | ratio to floor | ours | ratio to floor | ours / script "
                + "alone |\n|---|---:|---:|---:|---:|---:|---:|\n");
        md.append("| floor: EVALSHA `return 1` | ").append(micros(redisMicros.get("floor"))).append(" | ")
                .append(format(floor16)).append(" | 1.00 | | | |\n");
        double setPx = jmh.score("script set-px", jmh.mid());
        md.append("| EVALSHA of one `SET PX` | ").append(micros(redisMicros.get("set-px"))).append(" | ")
                .append(format(setPx)).append(" | ").append(format(setPx / floor16)).append(" | | | |\n");
        for (String algorithm : ALGORITHMS) {
            double alone = jmh.score("script " + algorithm, jmh.mid());
            double ours = jmh.score("ours " + algorithm + " distinct", jmh.mid());
            md.append("| `").append(algorithm).append("` | ").append(micros(redisMicros.get(algorithm))).append(" | ")
                    .append(format(alone)).append(" | ").append(format(alone / floor16)).append(" | ")
                    .append(format(ours)).append(" | ").append(format(ours / floor16)).append(" | ")
                    .append(format(ours / alone)).append(" |\n");
        }

        md.append("\n## Redis commands per decision\n\n");
        md.append("From `INFO commandstats` deltas over many decisions. *Round trips* counts what the client sent "
                + "(EVALSHA, EVAL or plain commands); *all* also counts the commands the script ran inside Redis.\n\n");
        md.append("| limiter | round trips per decision | all commands per decision |\n|---|---:|---:|\n");
        for (Map.Entry<String, double[]> entry : commands.entrySet()) {
            boolean naive = entry.getKey().startsWith("naive");
            md.append("| ").append(naive ? entry.getKey() : "`" + entry.getKey() + "`").append(" | ")
                    .append(naive ? format(entry.getValue()[1]) : format(entry.getValue()[0])).append(" | ")
                    .append(format(entry.getValue()[1])).append(" |\n");
        }

        md.append("\n## Redis memory per client key\n\n");
        md.append("`MEMORY USAGE key SAMPLES 0` after the client's first decision, after `limit` (100) admitted "
                + "decisions in one window, and for another client after 10 admitted decisions of cost 10 (the same "
                + "100 permits in fewer requests).\n\n");
        md.append("| algorithm | key name | after 1 | after 100 | after 10 of cost 10 |\n|---|---:|---:|---:|---:|\n");
        memory.forEach((algorithm, bytes) -> md.append("| `").append(algorithm).append("` | ").append(bytes[0])
                .append(" bytes | ").append(bytes[1]).append(" bytes | ").append(bytes[2]).append(" bytes | ")
                .append(bytes[3]).append(" bytes |\n"));

        md.append(http.section());

        md.append("\n## Targets (").append(jmh.mid()).append(" threads)\n\n");
        md.append("The HTTP targets are in the HTTP section, which an HTTP-only run rewrites.\n\n");
        md.append("| target | measured | met? |\n|---|---|:---:|\n");
        for (String algorithm : ALGORITHMS) {
            double need = algorithm.equals("sliding-log") ? 0.8 : 0.9;
            target(md, "`" + algorithm + "` ≥ " + need + " × floor (distinct keys)",
                    jmh.score("ours " + algorithm + " distinct", jmh.mid()) / floor16, need);
        }
        target(md, "`token-bucket` ≥ 1.5 × bucket4j, 10,000 keys", jmh.ratio("token-bucket", "bucket4j", "distinct"), 1.5);
        target(md, "`token-bucket` ≥ 5 × bucket4j, one hot admitted key", jmh.ratio("token-bucket", "bucket4j",
                "hot-admitted"), 5);
        target(md, "`token-bucket` ≥ 2 × Redisson RRateLimiter (10,000 keys)", jmh.ratio("token-bucket", "redisson",
                "distinct"), 2);
        target(md, "`sliding-log` ≥ 3 × naive four-call limiter (10,000 keys)", jmh.ratio("sliding-log", "naive",
                "distinct"), 3);
        for (String algorithm : ALGORITHMS) {
            target(md, "`" + algorithm + "` hot denied key with local deny cache ≥ 10 × floor",
                    jmh.score("ours " + algorithm + " hot-denied-cached", jmh.mid()) / floor16, 10);
        }
        for (String algorithm : List.of("fixed-window", "sliding-window", "token-bucket", "leaky-bucket", "gcra")) {
            long bytes = memory.get(algorithm)[2];
            md.append("| `").append(algorithm).append("` ≤ 128 bytes per key (30-byte key name) | ").append(bytes)
                    .append(" bytes | ").append(bytes <= 128 ? "yes" : "**no**").append(" |\n");
        }
        for (String algorithm : ALGORITHMS) {
            String on = "ours " + algorithm + " distinct";
            String off = "ours " + algorithm + " distinct-alone";
            double ratio = jmh.redisCpu(on, jmh.mid()) / jmh.redisCpu(off, jmh.mid());
            md.append("| `").append(algorithm).append("` Redis CPU per decision with coalescing ≤ 0.5 × without | ")
                    .append(String.format(Locale.ROOT, "%.3f", ratio)).append(" × | ").append(ratio <= 0.5 ? "yes" : "**no**")
                    .append(" |\n");
        }
        target(md, "1 caller with coalescing ≥ 0.95 × without (interleaved turns)", oneCaller, 0.95);
        double coalescingP99 = (coalesced.p99Micros - uncoalesced.p99Micros) / 1000;
        md.append(String.format(Locale.ROOT, "| coalescing adds ≤ 1 ms at p99 (%d threads) | %.2f ms | %s |%n", jmh.mid(),
                coalescingP99, coalescingP99 <= 1.0 ? "yes" : "**no**"));
        if (notes != null && Files.exists(notes) && !smoke) {
            md.append("\n").append(Files.readString(notes));
        }
        return md.toString();
    }

    private void row(StringBuilder md, String what, String traffic, String row) {
        md.append("| ").append(what).append(" | ").append(traffic).append(" |");
        for (int threads : jmh.threadCounts()) {
            double value = jmh.score(row, threads);
            md.append(' ').append(format(value)).append(" | ").append(format(value / jmh.score("floor", threads)))
                    .append(" |");
        }
        md.append(' ').append(micros(jmh.redisCpu(row, jmh.mid()))).append(" | ")
                .append(micros(jmh.clientCpu(row, jmh.mid()))).append(" |");
        md.append('\n');
    }

    private void comparison(StringBuilder md, String what, String algorithm, String peer, String traffic) {
        double ours = jmh.score("ours " + algorithm + " " + traffic, jmh.mid());
        double theirs = jmh.score("peer " + peer + " " + traffic, jmh.mid());
        md.append("| ").append(what).append(" | ").append(traffic).append(" | ").append(format(ours)).append(" | ")
                .append(format(theirs)).append(" | ").append(format(ours / theirs)).append(" |\n");
    }

    private static void target(StringBuilder md, String what, double measured, double need) {
        String shown = measured >= 100 ? format(measured) : String.format(Locale.ROOT, "%.3f", measured);
        md.append("| ").append(what).append(" | ").append(shown).append(" × | ")
                .append(measured >= need ? "yes" : "**no**").append(" |\n");
    }

    private static String peerName(String peer) {
        switch (peer) {
            case "bucket4j":
                return "bucket4j token bucket (Jedis)";
            case "redisson":
                return "Redisson RRateLimiter";
            default:
                return "naive four-call sorted set";
        }
    }

    private static String micros(Double value) {
        return value == null || value.isNaN() ? "–" : String.format(Locale.ROOT, "%.1f µs", value);
    }

    private static String format(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        if (value >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
