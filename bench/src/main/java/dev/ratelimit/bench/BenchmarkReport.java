package dev.ratelimit.bench;

import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Runs every benchmark against one local Redis ({@link JmhThroughput}), measures what JMH cannot
 * ({@link RedisMeasurements}, {@link HttpBench}), and writes bench/BENCHMARKS.md ({@link BenchmarkMarkdown}):
 * machine, versions, date, command, every raw figure, every ratio, and the targets met or missed.
 *
 * <p>Three modes, the first argument: {@code full} runs everything and rewrites the whole file;
 * {@code http} runs only the HTTP benchmark and rewrites only the file's HTTP section (and the
 * hand-written notes at its end, from bench/NOTES.md), leaving the other sections as they were;
 * {@code smoke} does all of it in seconds, so the benchmarks cannot rot; its numbers mean nothing,
 * so it writes {@value #SMOKE_FILE} under bench/target instead. An HTTP run of some rows only
 * ({@link HttpRows}) writes its section to {@value #ROWS_FILE} there, leaving BENCHMARKS.md whole.
 * From Maven: {@value #COMMAND}, with {@code -Dbench.mode=http} or {@code -Dbench.mode=smoke}.
 */
public final class BenchmarkReport {
    /** The command that runs the full benchmark from the repository root. */
    static final String COMMAND = "mvn -B -pl bench -am -DskipTests package exec:exec";
    /** The command that runs only the HTTP benchmark. */
    static final String HTTP_COMMAND = COMMAND + " -Dbench.mode=http";
    /** What a smoke run writes, under bench/target. */
    static final String SMOKE_FILE = "BENCHMARKS-smoke.md";
    /** What an HTTP run of selected rows writes, under bench/target; its profiles beside it. */
    static final String ROWS_FILE = "BENCHMARKS-rows.md";
    /** Every algorithm, in the order the report lists them. */
    static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "sliding-window",
            "token-bucket", "leaky-bucket", "gcra");

    private final boolean smoke;
    private final String redisUri;
    /** Findings written by hand about the targets (bench/NOTES.md), appended so a rerun keeps them. */
    private final Path notes;
    /** Where the HTTP rows' profiles go ({@value HttpProfilePage#FILE}), or null to keep none. */
    private final Path profiles;

    private BenchmarkReport(boolean smoke, String redisUri, Path notes, Path profiles) {
        this.smoke = smoke;
        this.redisUri = redisUri;
        this.notes = notes;
        this.profiles = profiles;
    }

    /**
     * {@code BenchmarkReport full|http|smoke <output.md>}; REDIS_URL if set, else a Redis of its own.
     *
     * @param args the mode (default {@code full}) and the file to write (default {@code bench/BENCHMARKS.md}, from
     *             the repository root); bench/NOTES.md is read beside it
     * @throws Exception when a benchmark fails
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "full";
        if (!List.of("full", "http", "smoke").contains(mode)) {
            throw new IllegalArgumentException("the mode must be full, http or smoke, but was '" + mode + "'");
        }
        boolean smoke = mode.equals("smoke");
        HttpRows rows = HttpRows.fromSystemProperties();
        if (!rows.all() && !mode.equals("http")) {
            throw new IllegalArgumentException(HttpRows.PROPERTY + " selects HTTP rows, so it needs -Dbench.mode=http, "
                    + "but the mode was " + mode);
        }
        Path output = Path.of(args.length > 1 ? args[1] : "bench/BENCHMARKS.md");
        Path notes = output.toAbsolutePath().resolveSibling("NOTES.md");
        Path profiles = output.toAbsolutePath().resolveSibling(HttpProfilePage.FILE);
        if (smoke || !rows.all()) {
            // Figures that mean nothing, or some rows only: the committed report stays as it is.
            Path target = output.toAbsolutePath().resolveSibling("target");
            Files.createDirectories(target);
            output = target.resolve(smoke ? SMOKE_FILE : ROWS_FILE);
            profiles = smoke ? null : target.resolve(ROWS_FILE.replace(".md", "-profile.md"));
        }
        String external = System.getenv("REDIS_URL");
        RedisServerExtension own = null;
        String uri = external;
        if (uri == null || uri.isBlank()) {
            own = RedisServerExtension.forced(ServerStrategy.PATH, ServerStrategy.EMBEDDED).open();
            uri = own.uri();
        }
        try {
            String markdown = mode.equals("http") ? httpOnly(uri, output, notes, profiles, rows)
                    : new BenchmarkReport(smoke, uri, notes, profiles).run();
            Files.writeString(output, markdown);
            System.out.println("Wrote " + output.toAbsolutePath());
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    /**
     * Runs the HTTP benchmark alone: with every row, {@code output} with its HTTP section and notes
     * replaced; with some rows, their section alone.
     */
    private static String httpOnly(String redisUri, Path output, Path notes, Path profiles, HttpRows rows)
            throws Exception {
        System.setProperty(BenchRedis.URI_PROPERTY, redisUri);
        String section = new HttpBenchMarkdown(http(redisUri, false, HTTP_COMMAND, rows, profiles)).section();
        if (!rows.all()) {
            return "# Benchmarks: some HTTP rows\n" + section;
        }
        String existing = Files.exists(output) ? Files.readString(output) : "# Benchmarks\n";
        return HttpBenchMarkdown.splice(existing, section, Files.exists(notes) ? Files.readString(notes) : null);
    }

    /** The HTTP part; with {@code profiles}, its rows' profiles written there. */
    private static HttpBench.Report http(String redisUri, boolean smoke, String command, HttpRows rows,
            Path profiles) throws Exception {
        String generator = System.getProperty(HttpLoad.PROPERTY, "");
        HttpBench.Report report;
        try (HttpLoad load = HttpLoad.choose(generator.isBlank() ? "auto" : generator, smoke)) {
            report = new HttpBench(redisUri, HttpRunShape.fromSystemProperties(smoke), rows).report(load, command);
        }
        if (profiles != null && !report.profiles().isEmpty()) {
            Files.writeString(profiles, new HttpProfilePage(report).write());
            System.out.println("Wrote " + profiles);
        }
        return report;
    }

    /** Runs everything and returns the report. */
    static String report(boolean smoke, String redisUri) throws Exception {
        return new BenchmarkReport(smoke, redisUri, null, null).run();
    }

    private String run() throws Exception {
        System.setProperty(BenchRedis.URI_PROPERTY, redisUri);
        long started = System.nanoTime();
        JmhThroughput jmh = new JmhThroughput(smoke, redisUri);
        jmh.runAll();
        RedisMeasurements measurements = new RedisMeasurements(smoke, redisUri);
        Map<String, double[]> commands = measurements.commandsPerDecision();
        Map<String, Double> redisMicros = measurements.redisMicrosPerCall();
        Map<String, long[]> memory = measurements.memoryPerKey();
        Duration latencyTime = smoke ? Duration.ofMillis(300) : Duration.ofSeconds(5);
        CoalescingLatency.Result coalesced = CoalescingLatency.run(redisUri, true, jmh.mid(), latencyTime);
        CoalescingLatency.Result alone = CoalescingLatency.run(redisUri, false, jmh.mid(), latencyTime);
        double oneCaller = CoalescingLatency.oneCallerRatio(redisUri, smoke ? 2 : 10,
                smoke ? Duration.ofMillis(50) : Duration.ofSeconds(1));
        HttpBench.Report http = http(redisUri, smoke, COMMAND, HttpRows.ALL, profiles);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return new BenchmarkMarkdown(smoke, jmh, measurements, notes).write(commands, redisMicros, memory,
                new HttpBenchMarkdown(http),
                coalesced, alone, oneCaller, took);
    }
}
