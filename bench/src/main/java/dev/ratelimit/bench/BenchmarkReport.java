package dev.ratelimit.bench;

import dev.ratelimit.testing.RedisServerExtension.Strategy;
import dev.ratelimit.testing.RedisServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Runs every benchmark against one local Redis ({@link JmhThroughput}), measures what JMH cannot
 * ({@link RedisMeasurements}, {@link HttpBench}), and writes BENCHMARKS.md ({@link BenchmarkMarkdown}):
 * machine, versions, date, command, every raw figure, every ratio, and the targets met or missed.
 * {@code smoke} does all of it in seconds, so the benchmarks cannot rot; its numbers mean nothing.
 */
public final class BenchmarkReport {
    /** The command that runs the full benchmark from the repository root. */
    static final String COMMAND = "mvn -B -pl bench -am -DskipTests package exec:exec";
    /** Every algorithm, in the order the report lists them. */
    static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "sliding-window",
            "token-bucket", "leaky-bucket", "gcra");

    private final boolean smoke;
    private final String redisUri;
    /** Findings written by hand about the targets (bench/NOTES.md), appended so a rerun keeps them. */
    private final Path notes;

    private BenchmarkReport(boolean smoke, String redisUri, Path notes) {
        this.smoke = smoke;
        this.redisUri = redisUri;
        this.notes = notes;
    }

    /** {@code BenchmarkReport full|smoke <output.md>}; REDIS_URL if set, else a Redis of its own. */
    public static void main(String[] args) throws Exception {
        boolean smoke = args.length > 0 && args[0].equals("smoke");
        Path output = Path.of(args.length > 1 ? args[1] : "BENCHMARKS.md");
        String external = System.getenv("REDIS_URL");
        RedisServerExtension own = null;
        String uri = external;
        if (uri == null || uri.isBlank()) {
            own = RedisServerExtension.forced(Strategy.PATH, Strategy.EMBEDDED).open();
            uri = own.uri();
        }
        try {
            Path notes = output.toAbsolutePath().getParent().resolve("bench").resolve("NOTES.md");
            String markdown = new BenchmarkReport(smoke, uri, notes).run();
            Files.writeString(output, markdown);
            System.out.println("Wrote " + output.toAbsolutePath());
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    private static HttpBench.Report http(String redisUri, boolean smoke, String command) throws Exception {
        try (HttpLoad load = HttpLoad.choose(System.getProperty(HttpLoad.PROPERTY, "auto"))) {
            return HttpBench.fromSystemProperties(redisUri, smoke).report(load, command);
        }
    }

    /** Runs everything and returns the report. */
    static String report(boolean smoke, String redisUri) throws Exception {
        return new BenchmarkReport(smoke, redisUri, null).run();
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
        HttpBench.Report http = http(redisUri, smoke, COMMAND);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return new BenchmarkMarkdown(smoke, jmh, measurements, notes).write(commands, redisMicros, memory,
                new HttpBenchMarkdown(http),
                coalesced, alone, oneCaller, took);
    }
}
