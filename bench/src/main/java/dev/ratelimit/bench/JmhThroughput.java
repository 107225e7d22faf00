package dev.ratelimit.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the JMH benchmarks ({@link LimiterBenchmark}, {@link FloorBenchmark}, {@link ScriptBenchmark},
 * {@link PeerBenchmark}) at each thread count and keeps their throughput, one row per benchmark and
 * parameters: {@code floor}, {@code script <name>}, {@code ours <algorithm> <traffic>},
 * {@code peer <peer> <traffic>}.
 */
final class JmhThroughput {
    private final boolean smoke;
    private final String redisUri;
    private final List<Integer> threadCounts;
    /** Decisions per second: row → threads → score. */
    private final Map<String, Map<Integer, Double>> throughput = new LinkedHashMap<>();
    /** Redis CPU per decision in microseconds ({@link CpuPerDecisionProfiler}): row → threads → value. */
    private final Map<String, Map<Integer, Double>> redisCpu = new LinkedHashMap<>();
    /** The benchmark JVM's CPU per decision in microseconds: row → threads → value. */
    private final Map<String, Map<Integer, Double>> clientCpu = new LinkedHashMap<>();

    JmhThroughput(boolean smoke, String redisUri) {
        this.smoke = smoke;
        this.redisUri = redisUri;
        // A smoke run proves that every benchmark runs: one thread count, with threads sharing state, does.
        this.threadCounts = smoke ? List.of(4) : List.of(1, 16, 64);
    }

    /** Runs every benchmark at every thread count. */
    void runAll() throws Exception {
        for (int threads : threadCounts) {
            run(threads);
        }
    }

    /** @return the thread counts, in the order they ran */
    List<Integer> threadCounts() {
        return threadCounts;
    }

    /** The thread count the comparisons and targets use: the middle one of a full run, a smoke run's only one. */
    int mid() {
        return threadCounts.get(threadCounts.size() > 2 ? 1 : threadCounts.size() - 1);
    }

    /** Decisions per second of {@code row} at {@code threads} threads, NaN when it did not run. */
    double score(String row, int threads) {
        Map<Integer, Double> scores = throughput.get(row);
        return scores == null || !scores.containsKey(threads) ? Double.NaN : scores.get(threads);
    }

    /** Redis CPU per decision of {@code row} at {@code threads} threads, in microseconds; NaN when not measured. */
    double redisCpu(String row, int threads) {
        return value(redisCpu, row, threads);
    }

    /** The benchmark JVM's CPU per decision of {@code row} at {@code threads} threads, in microseconds. */
    double clientCpu(String row, int threads) {
        return value(clientCpu, row, threads);
    }

    private static double value(Map<String, Map<Integer, Double>> values, String row, int threads) {
        Map<Integer, Double> byThreads = values.get(row);
        return byThreads == null || !byThreads.containsKey(threads) ? Double.NaN : byThreads.get(threads);
    }

    /** Ours over the peer, at {@link #mid()} threads. */
    double ratio(String algorithm, String peer, String traffic) {
        return score("ours " + algorithm + " " + traffic, mid()) / score("peer " + peer + " " + traffic, mid());
    }

    /** Runs every benchmark with {@code threads} threads and records the scores. */
    private void run(int threads) throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("dev\\.ratelimit\\.bench\\.(LimiterBenchmark|FloorBenchmark|ScriptBenchmark|PeerBenchmark)\\.")
                .threads(threads)
                .timeUnit(TimeUnit.SECONDS)
                .mode(org.openjdk.jmh.annotations.Mode.Throughput)
                .shouldFailOnError(true)
                .addProfiler(CpuPerDecisionProfiler.class)
                .jvmArgsAppend("-D" + BenchRedis.URI_PROPERTY + "=" + redisUri, "-Xmx1g");
        if (smoke) {
            // Silent: its figures mean nothing, and some thousand lines of them cost the build's log seconds.
            options.forks(0).warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(50))
                    .verbosity(VerboseMode.SILENT);
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
            Result<?> redis = result.getSecondaryResults().get(CpuPerDecisionProfiler.REDIS);
            Result<?> client = result.getSecondaryResults().get(CpuPerDecisionProfiler.CLIENT);
            if (redis != null && client != null) {
                redisCpu.computeIfAbsent(row, r -> new TreeMap<>()).put(threads, redis.getScore());
                clientCpu.computeIfAbsent(row, r -> new TreeMap<>()).put(threads, client.getScore());
            }
        }
    }
}
