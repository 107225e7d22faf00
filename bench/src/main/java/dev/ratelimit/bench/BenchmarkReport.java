package dev.ratelimit.bench;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.bench.peers.BenchLimiter;
import dev.ratelimit.bench.peers.NaiveSortedSetLimiter;
import dev.ratelimit.bench.peers.Peers;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.RedisServerExtension.Strategy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Runs every benchmark against one local Redis, measures what JMH cannot (commands and memory per
 * decision, HTTP overhead), and writes BENCHMARKS.md: machine, versions, date, command, every raw
 * figure, every ratio, and the targets met or missed. {@code smoke} does all of it in seconds, so
 * the benchmarks cannot rot; its numbers mean nothing.
 */
public final class BenchmarkReport {
    static final String COMMAND = "mvn -B -pl bench -am -DskipTests package exec:exec";
    private static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "sliding-window",
            "token-bucket", "leaky-bucket", "gcra");
    private static final List<String> TRAFFIC = List.of("distinct", "hot-admitted", "hot-denied", "hot-denied-cached");

    /** Callers at once when Redis CPU per call is measured: enough to keep Redis busy. */
    private static final int LOAD_THREADS = 8;

    private final boolean smoke;
    private final String redisUri;
    /** Findings written by hand about the targets (bench/NOTES.md), appended so a rerun keeps them. */
    private final Path notes;
    private final List<Integer> threadCounts;
    /** Decisions per second: row → threads → score. */
    private final Map<String, Map<Integer, Double>> throughput = new LinkedHashMap<>();

    private BenchmarkReport(boolean smoke, String redisUri, Path notes) {
        this.smoke = smoke;
        this.redisUri = redisUri;
        this.notes = notes;
        this.threadCounts = smoke ? List.of(1, 4) : List.of(1, 16, 64);
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

    /** Runs everything and returns the report. */
    static String report(boolean smoke, String redisUri) throws Exception {
        return new BenchmarkReport(smoke, redisUri, null).run();
    }

    private String run() throws Exception {
        System.setProperty(BenchRedis.URI_PROPERTY, redisUri);
        long started = System.nanoTime();
        for (int threads : threadCounts) {
            runJmh(threads);
        }
        Map<String, double[]> commands = commandsPerDecision();
        Map<String, Double> redisMicros = redisMicrosPerCall();
        Map<String, long[]> memory = memoryPerKey();
        Duration httpTime = smoke ? Duration.ofMillis(300) : Duration.ofSeconds(10);
        HttpLoad.Result bare = HttpLoad.run(redisUri, false, 16, httpTime);
        HttpLoad.Result filtered = HttpLoad.run(redisUri, true, 16, httpTime);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return markdown(commands, redisMicros, memory, bare, filtered, took);
    }

    private void runJmh(int threads) throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("dev\\.ratelimit\\.bench\\.(LimiterBenchmark|FloorBenchmark|ScriptBenchmark|PeerBenchmark)\\.")
                .threads(threads)
                .timeUnit(TimeUnit.SECONDS)
                .mode(org.openjdk.jmh.annotations.Mode.Throughput)
                .shouldFailOnError(true)
                .jvmArgsAppend("-D" + BenchRedis.URI_PROPERTY + "=" + redisUri, "-Xmx1g");
        if (smoke) {
            options.forks(0).warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(50));
        } else {
            options.forks(1).warmupIterations(1).warmupTime(TimeValue.seconds(1)).measurementIterations(2)
                    .measurementTime(TimeValue.seconds(2));
        }
        for (RunResult result : new Runner(options.build()).run()) {
            String benchmark = result.getParams().getBenchmark();
            String row;
            if (benchmark.contains("LimiterBenchmark")) {
                row = "ours " + result.getParams().getParam("algorithm") + " " + result.getParams().getParam("traffic");
            } else if (benchmark.contains("PeerBenchmark")) {
                row = "peer " + result.getParams().getParam("peer") + " " + result.getParams().getParam("traffic");
            } else if (benchmark.contains("ScriptBenchmark")) {
                row = "script " + result.getParams().getParam("script");
            } else {
                row = "floor";
            }
            throughput.computeIfAbsent(row, r -> new TreeMap<>()).put(threads, result.getPrimaryResult().getScore());
        }
    }

    /** Client commands (EVALSHA/EVAL) and all commands Redis ran, per decision, from INFO commandstats deltas. */
    private Map<String, double[]> commandsPerDecision() {
        Map<String, double[]> perDecision = new LinkedHashMap<>();
        int decisions = smoke ? 50 : 1000;
        try (Jedis admin = admin(); RedisStore store = RedisStore.connect(RedisSettings.of(redisUri))) {
            for (String algorithm : ALGORITHMS) {
                RateLimiter limiter = RateLimiter.builder(store).policyName("commands-" + algorithm)
                        .localDenyCache(false).rule(Rule.of(Algorithm.fromConfigName(algorithm), 1_000_000,
                                Duration.ofHours(1))).build();
                Map<String, Long> before = commandStats(admin);
                for (int i = 0; i < decisions; i++) {
                    limiter.tryAcquire("client-" + (i % 100));
                }
                perDecision.put(algorithm, delta(before, commandStats(admin), decisions));
                for (int i = 0; i < 100; i++) {
                    limiter.reset("client-" + i);
                }
            }
            try (BenchLimiter naive = NaiveSortedSetLimiter.create(redisUri, 1_000_000, Duration.ofHours(1), 4)) {
                Map<String, Long> before = commandStats(admin);
                for (int i = 0; i < decisions; i++) {
                    naive.tryAcquire("naive-client-" + (i % 100));
                }
                perDecision.put("naive four-call (peer)", delta(before, commandStats(admin), decisions));
            }
        }
        return perDecision;
    }

    private static double[] delta(Map<String, Long> before, Map<String, Long> after, int decisions) {
        long scripts = 0;
        long all = 0;
        for (Map.Entry<String, Long> entry : after.entrySet()) {
            long calls = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
            all += calls;
            if (entry.getKey().equals("evalsha") || entry.getKey().equals("eval")) {
                scripts += calls;
            }
        }
        // INFO itself is counted once between the two readings.
        all -= 1;
        return new double[] {(double) scripts / decisions, (double) all / decisions};
    }

    private static Map<String, Long> commandStats(Jedis admin) {
        Map<String, Long> stats = new TreeMap<>();
        Matcher line = Pattern.compile("cmdstat_([a-z|_-]+):calls=(\\d+)").matcher(admin.info("commandstats"));
        while (line.find()) {
            stats.put(line.group(1), Long.parseLong(line.group(2)));
        }
        return stats;
    }

    /**
     * Redis CPU per call in microseconds: the time INFO commandstats charges to EVALSHA and EVAL,
     * over many calls on 10,000 keys from {@link #LOAD_THREADS} threads. It leaves out reading the
     * request and writing the reply, which cost every row alike; what it shows is what each script
     * adds to that. Measured under load, as in the runs: one caller at a time leaves Redis idle
     * between calls, and cold caches then inflate every figure.
     */
    private Map<String, Double> redisMicrosPerCall() throws InterruptedException {
        Map<String, Double> micros = new LinkedHashMap<>();
        int calls = smoke ? 100 : 40_000;
        try (Jedis admin = admin(); RedisStore store = RedisStore.connect(RedisSettings.of(redisUri));
                RedisClient pool = Peers.pooledJedis(redisUri, LOAD_THREADS, "bench-redis-cpu")) {
            String floor = pool.scriptLoad("return 1");
            String setPx = pool.scriptLoad("return redis.call('SET', KEYS[1], '1', 'PX', '60000')");
            micros.put("floor", scriptMicros(admin, calls,
                    i -> pool.evalsha(floor, List.of("cpu-floor:" + i % Traffic.DISTINCT_KEYS), List.of())));
            micros.put("set-px", scriptMicros(admin, calls,
                    i -> pool.evalsha(setPx, List.of("cpu-set-px:" + i % Traffic.DISTINCT_KEYS), List.of())));
            for (String algorithm : ALGORITHMS) {
                RateLimiter limiter = RateLimiter.builder(store).policyName("cpu-" + algorithm).localDenyCache(false)
                        .rule(Rule.of(Algorithm.fromConfigName(algorithm), 1_000_000_000L, BenchRedis.WINDOW)).build();
                micros.put(algorithm, scriptMicros(admin, calls,
                        i -> limiter.tryAcquire("client-" + i % Traffic.DISTINCT_KEYS)));
            }
        }
        return micros;
    }

    private static double scriptMicros(Jedis admin, int calls, IntConsumer call) throws InterruptedException {
        long[] before = scriptUsage(admin);
        ExecutorService threads = Executors.newFixedThreadPool(LOAD_THREADS);
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        try {
            for (int t = 0; t < LOAD_THREADS; t++) {
                int first = t;
                threads.execute(() -> {
                    try {
                        for (int i = first; i < calls; i += LOAD_THREADS) {
                            call.accept(i);
                        }
                    } catch (RuntimeException e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
        } finally {
            threads.shutdown();
        }
        if (!threads.awaitTermination(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Redis CPU calls did not finish in 5 minutes");
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        long[] after = scriptUsage(admin);
        return (double) (after[1] - before[1]) / (after[0] - before[0]);
    }

    /** {calls, usec} of EVALSHA and EVAL together. */
    private static long[] scriptUsage(Jedis admin) {
        long[] usage = new long[2];
        Matcher line = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+),usec=(\\d+)")
                .matcher(admin.info("commandstats"));
        while (line.find()) {
            usage[0] += Long.parseLong(line.group(1));
            usage[1] += Long.parseLong(line.group(2));
        }
        return usage;
    }

    /** MEMORY USAGE of one client's key after one decision and after `limit` decisions, key name 30 bytes. */
    private Map<String, long[]> memoryPerKey() {
        Map<String, long[]> memory = new LinkedHashMap<>();
        int limit = 100;
        try (Jedis admin = admin(); RedisStore store = RedisStore.connect(RedisSettings.of(redisUri))) {
            for (String algorithm : ALGORITHMS) {
                // "ratelimit:" + "memory" + ":{" + "client-0001" + "}" = 30 bytes.
                RateLimiter limiter = RateLimiter.builder(store).policyName("memory").localDenyCache(false)
                        .rule(Rule.of(Algorithm.fromConfigName(algorithm), limit, Duration.ofHours(1))).build();
                String client = "client-0001";
                String key = limiter.redisKeys(client).get(0);
                limiter.reset(client);
                limiter.tryAcquire(client);
                long afterOne = memoryUsage(admin, key);
                for (int i = 1; i < limit; i++) {
                    limiter.tryAcquire(client);
                }
                long afterLimit = memoryUsage(admin, key);
                memory.put(algorithm, new long[] {key.length(), afterOne, afterLimit});
                limiter.reset(client);
            }
        }
        return memory;
    }

    private static long memoryUsage(Jedis admin, String key) {
        Long usage = admin.memoryUsage(key, 0);
        return usage == null ? -1 : usage;
    }

    private Jedis admin() {
        return new Jedis(URI.create(redisUri));
    }

    private String markdown(Map<String, double[]> commands, Map<String, Double> redisMicros, Map<String, long[]> memory,
            HttpLoad.Result bare,
            HttpLoad.Result filtered, Duration took) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        if (smoke) {
            md.append("**Smoke run: every benchmark ran for a few milliseconds to prove it still works. These numbers "
                    + "mean nothing.**\n\n");
        }
        md.append("Run by `").append(COMMAND).append("` from the repository root (about 15 minutes; it rewrites this "
                + "file). Every figure below comes from that one run, against one local Redis, on one machine; "
                + "compare ratios, not absolute numbers from other runs.\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)).append(" |\n");
        md.append("| machine | ").append(machine()).append(" |\n");
        md.append("| JDK | ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.version")).append(" |\n");
        try (Jedis admin = admin()) {
            Matcher version = Pattern.compile("redis_version:(\\S+)").matcher(admin.info("server"));
            md.append("| Redis | ").append(version.find() ? version.group(1) : "?")
                    .append(" on the same machine, over loopback |\n");
        }
        md.append("| JMH | ").append(smoke ? "no fork, no warm-up, 1 × 50 ms" : "1 fork, warm-up 1 × 1 s, measurement 2 × 2 s")
                .append(", throughput; pools of ").append(BenchRedis.POOL_SIZE).append(" connections for everyone |\n");
        md.append("| run time | ").append(took.toSeconds()).append(" s |\n\n");

        double floor16 = score("floor", mid());
        md.append("## Decisions per second\n\n");
        md.append("The floor is one EVALSHA of `return 1` with one key through the same kind of Jedis pool: one round "
                + "trip, the most any Redis limiter can do. Ratios are to the floor at the same thread count.\n\n");
        md.append("| what | traffic |");
        for (int threads : threadCounts) {
            md.append(' ').append(threads).append(" threads | ratio |");
        }
        md.append('\n').append("|---|---|");
        threadCounts.forEach(t -> md.append("---:|---:|"));
        md.append('\n');
        row(md, "floor: EVALSHA `return 1`", "distinct", "floor");
        row(md, "EVALSHA of one `SET PX`", "distinct", "script set-px");
        for (String algorithm : ALGORITHMS) {
            row(md, "`" + algorithm + "` script alone (bare EVALSHA)", "distinct", "script " + algorithm);
            for (String traffic : TRAFFIC) {
                row(md, "`" + algorithm + "`", traffic.replace("hot-denied-cached", "hot-denied, local deny cache"),
                        "ours " + algorithm + " " + traffic);
            }
        }
        for (String peer : List.of("bucket4j", "redisson", "naive")) {
            for (String traffic : List.of("distinct", "hot-admitted")) {
                row(md, peerName(peer), traffic, "peer " + peer + " " + traffic);
            }
        }
        md.append("\nTraffic: `distinct` = 10,000 clients round-robin, all admitted; `hot-admitted` = one client, all "
                + "admitted; `hot-denied` = one client over its limit, all denied (local deny cache off unless "
                + "said). Admitted traffic runs under a limit of 10^9 per minute, for ours and the peers alike.\n\n");

        md.append("## Ours against the peers (").append(mid()).append(" threads)\n\n");
        md.append("| comparison | traffic | ours | peer | ours / peer |\n|---|---|---:|---:|---:|\n");
        comparison(md, "`token-bucket` vs bucket4j token bucket", "token-bucket", "bucket4j", "distinct");
        comparison(md, "`token-bucket` vs bucket4j token bucket", "token-bucket", "bucket4j", "hot-admitted");
        comparison(md, "`token-bucket` vs Redisson RRateLimiter", "token-bucket", "redisson", "distinct");
        comparison(md, "`token-bucket` vs Redisson RRateLimiter", "token-bucket", "redisson", "hot-admitted");
        comparison(md, "`sliding-log` vs naive four-call sorted set", "sliding-log", "naive", "distinct");
        comparison(md, "`sliding-log` vs naive four-call sorted set", "sliding-log", "naive", "hot-admitted");

        md.append("\n## Where the distance to the floor comes from (").append(mid()).append(" threads)\n\n");
        md.append("*Redis CPU* is what `INFO commandstats` charges to EVALSHA per call (8 callers, 10,000 keys): "
                + "the script alone, without reading the request or writing the reply, which cost every row alike. "
                + "*Script alone* runs the algorithm's script by a bare EVALSHA, with the arguments our limiter sends; "
                + "*ours* is the same script through `RateLimiter`. `SET PX` is the least a limiter must do: one "
                + "write with an expiry.\n\n");
        md.append("| what | Redis CPU per call | script alone | ratio to floor | ours | ratio to floor | ours / script "
                + "alone |\n|---|---:|---:|---:|---:|---:|---:|\n");
        md.append("| floor: EVALSHA `return 1` | ").append(micros(redisMicros.get("floor"))).append(" | ")
                .append(format(floor16)).append(" | 1.00 | | | |\n");
        double setPx = score("script set-px", mid());
        md.append("| EVALSHA of one `SET PX` | ").append(micros(redisMicros.get("set-px"))).append(" | ")
                .append(format(setPx)).append(" | ").append(format(setPx / floor16)).append(" | | | |\n");
        for (String algorithm : ALGORITHMS) {
            double alone = score("script " + algorithm, mid());
            double ours = score("ours " + algorithm + " distinct", mid());
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
        md.append("`MEMORY USAGE key SAMPLES 0` after the client's first decision and after `limit` (100) admitted "
                + "decisions in one window.\n\n");
        md.append("| algorithm | key name | after 1 | after 100 |\n|---|---:|---:|---:|\n");
        memory.forEach((algorithm, bytes) -> md.append("| `").append(algorithm).append("` | ").append(bytes[0])
                .append(" bytes | ").append(bytes[1]).append(" bytes | ").append(bytes[2]).append(" bytes |\n"));

        md.append("\n## HTTP\n\n");
        md.append("Embedded Jetty with a servlet that writes `ok`, driven by 16 closed-loop clients (JDK HttpClient) in "
                + "the same JVM on the same two cores, with and without `RateLimitFilter` (default `sliding-log`, all "
                + "admitted, one client).\n\n");
        md.append("| | requests/s | p50 | p99 | errors |\n|---|---:|---:|---:|---:|\n");
        md.append(String.format(Locale.ROOT, "| bare servlet | %.0f | %.2f ms | %.2f ms | %d |%n",
                bare.requestsPerSecond(), bare.p50Millis(), bare.p99Millis(), bare.errors()));
        md.append(String.format(Locale.ROOT, "| with RateLimitFilter | %.0f | %.2f ms | %.2f ms | %d |%n",
                filtered.requestsPerSecond(), filtered.p50Millis(), filtered.p99Millis(), filtered.errors()));
        md.append(String.format(Locale.ROOT, "%nThe filter keeps %.0f %% of the bare throughput and adds %.2f ms at p50, "
                + "%.2f ms at p99.%n", 100 * filtered.requestsPerSecond() / bare.requestsPerSecond(),
                filtered.p50Millis() - bare.p50Millis(), filtered.p99Millis() - bare.p99Millis()));

        md.append("\n## Targets (").append(mid()).append(" threads)\n\n");
        md.append("| target | measured | met? |\n|---|---|:---:|\n");
        for (String algorithm : ALGORITHMS) {
            double need = algorithm.equals("sliding-log") ? 0.8 : 0.9;
            target(md, "`" + algorithm + "` ≥ " + need + " × floor (distinct keys)",
                    score("ours " + algorithm + " distinct", mid()) / floor16, need);
        }
        target(md, "`token-bucket` ≥ 1.5 × bucket4j, 10,000 keys", ratio("token-bucket", "bucket4j", "distinct"), 1.5);
        target(md, "`token-bucket` ≥ 5 × bucket4j, one hot admitted key", ratio("token-bucket", "bucket4j",
                "hot-admitted"), 5);
        target(md, "`token-bucket` ≥ 2 × Redisson RRateLimiter (10,000 keys)", ratio("token-bucket", "redisson",
                "distinct"), 2);
        target(md, "`sliding-log` ≥ 3 × naive four-call limiter (10,000 keys)", ratio("sliding-log", "naive",
                "distinct"), 3);
        for (String algorithm : ALGORITHMS) {
            target(md, "`" + algorithm + "` hot denied key with local deny cache ≥ 10 × floor",
                    score("ours " + algorithm + " hot-denied-cached", mid()) / floor16, 10);
        }
        for (String algorithm : List.of("fixed-window", "sliding-window", "token-bucket", "leaky-bucket", "gcra")) {
            long bytes = memory.get(algorithm)[2];
            md.append("| `").append(algorithm).append("` ≤ 128 bytes per key (30-byte key name) | ").append(bytes)
                    .append(" bytes | ").append(bytes <= 128 ? "yes" : "**no**").append(" |\n");
        }
        double kept = filtered.requestsPerSecond() / bare.requestsPerSecond();
        md.append(String.format(Locale.ROOT, "| filter keeps ≥ 60 %% of bare throughput | %.0f %% | %s |%n", 100 * kept,
                kept >= 0.6 ? "yes" : "**no**"));
        double addedP99 = filtered.p99Millis() - bare.p99Millis();
        md.append(String.format(Locale.ROOT, "| filter adds ≤ 1 ms at p99 | %.2f ms | %s |%n", addedP99,
                addedP99 <= 1.0 ? "yes" : "**no**"));
        if (notes != null && Files.exists(notes) && !smoke) {
            md.append("\n").append(Files.readString(notes));
        }
        return md.toString();
    }

    private int mid() {
        return threadCounts.get(threadCounts.size() > 2 ? 1 : threadCounts.size() - 1);
    }

    private double score(String row, int threads) {
        Map<Integer, Double> scores = throughput.get(row);
        return scores == null || !scores.containsKey(threads) ? Double.NaN : scores.get(threads);
    }

    private double ratio(String algorithm, String peer, String traffic) {
        return score("ours " + algorithm + " " + traffic, mid()) / score("peer " + peer + " " + traffic, mid());
    }

    private void row(StringBuilder md, String what, String traffic, String row) {
        md.append("| ").append(what).append(" | ").append(traffic).append(" |");
        for (int threads : threadCounts) {
            double value = score(row, threads);
            md.append(' ').append(format(value)).append(" | ").append(format(value / score("floor", threads)))
                    .append(" |");
        }
        md.append('\n');
    }

    private void comparison(StringBuilder md, String what, String algorithm, String peer, String traffic) {
        double ours = score("ours " + algorithm + " " + traffic, mid());
        double theirs = score("peer " + peer + " " + traffic, mid());
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

    private static String machine() {
        String cpu = "?";
        String memory = "?";
        try {
            Matcher model = Pattern.compile("model name\\s*:\\s*(.+)").matcher(Files.readString(Path.of("/proc/cpuinfo")));
            if (model.find()) {
                cpu = model.group(1).trim();
            }
            Matcher total = Pattern.compile("MemTotal:\\s*(\\d+) kB").matcher(Files.readString(Path.of("/proc/meminfo")));
            if (total.find()) {
                memory = Long.parseLong(total.group(1)) / 1024 / 1024 + " GiB";
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the cores and OS still say something
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + memory + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }
}
