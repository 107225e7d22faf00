package dev.ratelimit.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The filter over real HTTP. Three kinds of process: the benchmark's JVM (this class) only starts
 * the others and reads counters between runs; the server is a JVM of its own
 * ({@link HttpBenchServer}: an embedded Tomcat with one webapp per row, each a servlet that writes
 * {@code ok} behind the row's filter); the load comes from a generator in a process of its own
 * ({@link HttpLoad}: {@code wrk} when it is on the PATH, else {@link LoadGenerator}). So the server
 * JVM's CPU time over a row is the server's alone.
 *
 * <p>Rows: no filter, Tomcat's own in-memory {@code RateLimitFilter} (the anchor: what a limiter that
 * never leaves the JVM costs), the floor (one bare round trip to Redis per request,
 * {@link RoundTripFloorFilter}: the least a filter that asks Redis every time can cost), an
 * asynchronous hand-off with no Redis at all ({@link AsyncHopFilter}: what a filter that does not
 * hold the request's thread while Redis answers spends before any I/O), and ours per
 * algorithm, without and with quota leases; at {@value #MANY_CLIENTS} clients also ours for
 * {@value #TRACED_ALGORITHM} behind an OpenTelemetry SDK's server span per request
 * ({@link ServerSpanAheadFilter}), with {@code tracing=none}, {@code opentelemetry} and
 * {@code tracingSpan=own}: what tracing the decision costs. Two kinds of
 * traffic, all admitted (limits far above it): {@value #MANY_CLIENTS} clients, and
 * {@value #BUSY_CLIENTS} busy ones, each request carrying its client in the header {@code X-Client}.
 * Per row: requests/s and latency as the generator saw them, and per request the server JVM's CPU,
 * Redis' CPU ({@code INFO cpu}), script calls ({@code INFO commandstats}) and the generator's CPU.
 *
 * <p>How a run goes: first a warm-up round loads every row once, unmeasured, so that the JIT has
 * compiled what the rows share before any is measured (a fresh JVM takes 5–10 s of load on two
 * busy cores to settle). Then the rows run in rounds, every row once per round, each a short
 * warm-up of its own (its Redis connections, leases and keys) and a measured part; a burst of other
 * work on the machine then falls on one row of one round rather than on every round of one row.
 * Each row reports its median round by requests/s, and how far its rounds spread. A full run then
 * loads every row once more with a JFR recording of the server's execution samples, and keeps a
 * summary of where each row's CPU went ({@link JfrTopFrames}); nothing is measured in that pass.
 */
final class HttpBench {
    /** The algorithms the HTTP rows run, each without and with leases. */
    static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "token-bucket", "gcra");
    static final int MANY_CLIENTS = 10_000;
    static final int BUSY_CLIENTS = 100;
    static final String NO_FILTER = "no filter";
    static final String TOMCAT_FILTER = "Tomcat's RateLimitFilter";
    /** The floor of a filter that asks Redis on every request ({@link RoundTripFloorFilter}). */
    static final String FLOOR = "floor: one EVALSHA `return 1`";
    /** What an asynchronous filter spends before any Redis I/O ({@link AsyncHopFilter}). */
    static final String ASYNC_HOP = "async hand-off alone, no Redis";
    /** Our filter's class. */
    static final String OURS = "dev.ratelimit.servlet.RateLimitFilter";
    /** The algorithm of the tracing rows, at {@value #MANY_CLIENTS} clients. */
    static final String TRACED_ALGORITHM = "gcra";
    /**
     * The tracing rows, each behind an SDK's server span ({@link ServerSpanAheadFilter}): a key space,
     * then {@code tracing} and, if given, {@code tracingSpan}.
     */
    static final List<String[]> TRACING = List.of(new String[] {"untraced", "none"},
            new String[] {"traced", "opentelemetry"}, new String[] {"own-span", "opentelemetry", "own"});
    /**
     * What one row measured, in its median round.
     *
     * @param spread          (largest − smallest) / median requests/s over the rounds; 0 with one round
     * @param generatorMicros the generator's CPU per request, NaN where it cannot be read
     * @param gcMillis        the server JVM's collectors' time over the measured part
     */
    record Row(String what, int clients, double requestsPerSecond, double p50Millis, double p99Millis,
            double serverMicros, double redisMicros, double redisCalls, double generatorMicros, long gcMillis,
            double spread) {
    }

    /** One row: its traffic, and its filter (null for none) with the filter's init-params. */
    record Setup(String what, int clients, String filterClass, Map<String, String> params) {
    }

    private final String redisUri;
    private final HttpRunShape shape;
    private final HttpRows selected;

    HttpBench(String redisUri, HttpRunShape shape, HttpRows selected) {
        this.redisUri = redisUri;
        this.shape = shape;
        this.selected = selected;
    }

    /** Every row for both kinds of traffic, in the order the report lists them. */
    List<Setup> setups() {
        List<Setup> setups = new ArrayList<>();
        for (int clients : new int[] {MANY_CLIENTS, BUSY_CLIENTS}) {
            setups.add(new Setup(NO_FILTER, clients, null, Map.of()));
            setups.add(new Setup(TOMCAT_FILTER, clients, "org.apache.catalina.filters.RateLimitFilter",
                    Map.of("bucketDuration", "60", "bucketRequests", "100000000")));
            setups.add(new Setup(FLOOR, clients, RoundTripFloorFilter.class.getName(),
                    Map.of("redisUri", redisUri, "redisPoolSize", Integer.toString(BenchRedis.POOL_SIZE))));
            setups.add(new Setup(ASYNC_HOP, clients, AsyncHopFilter.class.getName(), Map.of()));
            for (String algorithm : ALGORITHMS) {
                for (boolean leases : new boolean[] {false, true}) {
                    setups.add(new Setup("`" + algorithm + "`" + (leases ? ", leases" : ""), clients, OURS,
                            ours(clients, algorithm, leases, "")));
                }
            }
            if (clients == MANY_CLIENTS) {
                // Issue 52: what writing the decision on the request's trace costs, under an SDK's server span.
                for (String[] tracing : TRACING) {
                    Map<String, String> params = ours(clients, TRACED_ALGORITHM, false, tracing[0] + ":");
                    params.put("tracing", tracing[1]);
                    if (tracing.length > 2) {
                        params.put("tracingSpan", tracing[2]);
                    }
                    setups.add(new Setup(tracedRow(tracing), clients,
                            ServerSpanAheadFilter.class.getName() + "," + OURS, params));
                }
            }
        }
        return setups;
    }

    /** The init-params of our filter for a row: limits far above the traffic, a key space of its own. */
    private Map<String, String> ours(int clients, String algorithm, boolean leases, String keySpace) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("redisUri", redisUri);
        params.put("algorithm", algorithm);
        params.put("limit", "1000000000");
        params.put("window", "1m");
        params.put("key", "header:X-Client");
        params.put("keyPrefix", "ratelimit:http-bench:" + clients + ":" + algorithm + ":" + leases + ":" + keySpace);
        params.put("redisPoolSize", Integer.toString(BenchRedis.POOL_SIZE));
        params.put("leases", Boolean.toString(leases));
        return params;
    }

    /** A tracing row's name: {@code `gcra`, server span, tracing=opentelemetry}. */
    static String tracedRow(String... tracing) {
        return "`" + TRACED_ALGORITHM + "`, server span, " + (tracing.length > 2 ? "tracingSpan=" + tracing[2]
                : "tracing=" + tracing[1]);
    }

    /**
     * Everything the HTTP section reports, from one run.
     *
     * @param generator    what generated the load of {@link #rows}
     * @param rows         each setup's median round
     * @param rowsRun      which rows ran ({@link HttpRows#describe})
     * @param generators   the no-filter row at {@value #MANY_CLIENTS} clients once per generator this
     *                     machine has, by the generator's description; empty when that row did not run
     * @param loadAverages the machine's one-minute load average when the run started and when it ended
     * @param profiles     each row's profile, in the rows' order; empty when the run profiled nothing
     */
    record Report(ZonedDateTime date, String command, String generator, Duration firstWarmUp, Duration warmUp,
            Duration measure, int rounds, String redisVersion, String rowsRun, List<Row> rows, Map<String, Row> generators,
            Duration took, double[] loadAverages, List<JfrTopFrames.Summary> profiles) {
    }

    /**
     * The whole HTTP part on one server: the warm-up round, every row with {@code load} in rounds,
     * then the no-filter row once with each generator this machine has, for the table that compares
     * them.
     *
     * @param command the command that ran it, for the report
     */
    Report report(HttpLoad load, String command) throws Exception {
        ZonedDateTime date = ZonedDateTime.now(ZoneOffset.UTC);
        double loadBefore = Machine.loadAverage();
        long started = System.nanoTime();
        List<Setup> setups = selected.select(setups());
        List<Row> rows;
        List<JfrTopFrames.Summary> profiles = List.of();
        Map<String, Row> generators = new LinkedHashMap<>();
        try (HttpBenchProcess server = HttpBenchProcess.start(setups, shape.smoke())) {
            rows = runAll(server, setups, load);
            if (shape.profile()) {
                profiles = profileAll(server, setups, load);
            }
            // The generators compared on the no-filter row of many clients, when the selection holds it.
            int bare = setups.indexOf(new Setup(NO_FILTER, MANY_CLIENTS, null, Map.of()));
            List<String> kinds = bare < 0 ? List.of() : HttpLoad.wrkAvailable() ? List.of("wrk", "java") : List.of("java");
            for (String kind : kinds) {
                try (HttpLoad other = HttpLoad.choose(kind, shape.smoke())) {
                    generators.put(other.describe(), run(server, setups, bare, other));
                }
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return new Report(date, command, load.describe(), shape.firstWarmUp(), shape.warmUp(), shape.measure(), shape.rounds(),
                new RedisMeasurements(false, redisUri).redisVersion(), selected.describe(), rows, generators, took,
                new double[] {loadBefore, Machine.loadAverage()}, profiles);
    }

    /**
     * Every row once more, its measured part recorded by JFR in the server: where its CPU went.
     * Apart from the rounds, so that the recording's cost is in none of their figures.
     */
    private List<JfrTopFrames.Summary> profileAll(HttpBenchProcess server, List<Setup> setups, HttpLoad load)
            throws Exception {
        Path dir = Files.createTempDirectory("http-bench-profiles");
        List<JfrTopFrames.Summary> profiles = new ArrayList<>();
        try {
            for (int i = 0; i < setups.size(); i++) {
                Path recording = dir.resolve("row" + i + ".jfr");
                load.run(server.uri(i), setups.get(i).clients(), shape.warmUp(), shape.measure(), new HttpLoad.Meter() {
                    @Override
                    public void start() throws IOException {
                        server.profile();
                    }

                    @Override
                    public void stop() throws IOException {
                        server.profiled(recording);
                    }
                });
                profiles.add(JfrTopFrames.read(recording, JfrTopFrames.TOP));
                Files.delete(recording);
            }
        } finally {
            Files.deleteIfExists(dir);
        }
        return profiles;
    }

    /** The warm-up round, then every setup as many times as the shape's rounds in turn: each row's median round. */
    private List<Row> runAll(HttpBenchProcess server, List<Setup> setups, HttpLoad load) throws Exception {
        if (!shape.firstWarmUp().isZero()) {
            for (int i = 0; i < setups.size(); i++) {
                load.warm(server.uri(i), setups.get(i).clients(), shape.firstWarmUp());
            }
        }
        List<List<Row>> measured = new ArrayList<>();
        setups.forEach(setup -> measured.add(new ArrayList<>()));
        for (int round = 1; round <= shape.rounds(); round++) {
            for (int i = 0; i < setups.size(); i++) {
                Row row = run(server, setups, i, load);
                measured.get(i).add(row);
                System.err.printf(Locale.ROOT, "HTTP round %d/%d, %,d clients, %s: %,.0f requests/s, server %.1f µs, "
                        + "Redis %.1f µs, %.3f script calls, generator %.1f µs per request, GC %d ms, load %.2f%n",
                        round, shape.rounds(), row.clients(), row.what(), row.requestsPerSecond(), row.serverMicros(),
                        row.redisMicros(), row.redisCalls(), row.generatorMicros(), row.gcMillis(), Machine.loadAverage());
            }
        }
        List<Row> rows = new ArrayList<>();
        measured.forEach(each -> rows.add(median(each)));
        return rows;
    }

    /** The row's round with the median requests/s, carrying the spread of all its rounds. */
    static Row median(List<Row> roundsOfOneRow) {
        List<Row> sorted = new ArrayList<>(roundsOfOneRow);
        sorted.sort(Comparator.comparingDouble(Row::requestsPerSecond));
        Row median = sorted.get((sorted.size() - 1) / 2);
        double spread = (sorted.get(sorted.size() - 1).requestsPerSecond() - sorted.get(0).requestsPerSecond())
                / median.requestsPerSecond();
        return new Row(median.what(), median.clients(), median.requestsPerSecond(), median.p50Millis(),
                median.p99Millis(), median.serverMicros(), median.redisMicros(), median.redisCalls(),
                median.generatorMicros(), median.gcMillis(), spread);
    }

    /** One row, once, on the shared server: its own warm-up, then the measured part. */
    private Row run(HttpBenchProcess server, List<Setup> setups, int index, HttpLoad load) throws Exception {
        Setup setup = setups.get(index);
        URI uri = server.uri(index);
        ServerCounters before = new ServerCounters(redisUri);
        ServerCounters after = new ServerCounters(redisUri);
        HttpLoad.Result result = load.run(uri, setup.clients(), shape.warmUp(), shape.measure(), new HttpLoad.Meter() {
            @Override
            public void start() throws IOException {
                before.read(server);
            }

            @Override
            public void stop() throws IOException {
                after.read(server);
            }
        });
        if (result.errors() > 0) {
            // Every request must be admitted and answered: a row of refusals would measure nothing.
            throw new IllegalStateException(setup.what() + " answered " + result.errors() + " of "
                    + result.requests() + " requests with something else than 200");
        }
        double requests = Math.max(1, result.requests());
        return new Row(setup.what(), setup.clients(), requests / result.seconds(), result.p50Micros() / 1000,
                result.p99Micros() / 1000, (after.serverCpuNanos - before.serverCpuNanos) / 1e3 / requests,
                (after.redisCpuSeconds - before.redisCpuSeconds) * 1e6 / requests,
                (after.scriptCalls - before.scriptCalls) / requests, result.cpuSeconds() * 1e6 / requests,
                after.serverGcMillis - before.serverGcMillis, 0);
    }
}
