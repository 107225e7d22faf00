package dev.ratelimit.bench;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import redis.clients.jedis.Jedis;

/**
 * What one decision costs in CPU, beside what JMH measures: the Redis server's ({@code INFO cpu},
 * system plus user time, which includes reading requests and writing replies, not only the
 * scripts) and the benchmark JVM's ({@code getProcessCpuTime}: the callers, the client library and
 * JMH itself, the same for every row). Both over one iteration, divided by the decisions JMH counted
 * in it. At scale the shared Redis runs out first, so its CPU per decision is what decides how many
 * application nodes one Redis can serve.
 */
public final class CpuPerDecisionProfiler implements InternalProfiler {
    /** The secondary result with Redis CPU per decision, in microseconds. */
    static final String REDIS = "redis-cpu";
    /** The secondary result with the benchmark JVM's CPU per decision, in microseconds. */
    static final String CLIENT = "client-cpu";

    private static final Pattern CPU_LINE = Pattern.compile("^used_cpu_(sys|user):([0-9.]+)\\s*$", Pattern.MULTILINE);

    private double redisBefore;
    private long clientBefore;

    @Override
    public String getDescription() {
        return "Redis and client CPU per decision";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        redisBefore = redisCpuSeconds();
        clientBefore = processCpuNanos();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
            IterationResult result) {
        double redisSeconds = redisCpuSeconds() - redisBefore;
        long clientNanos = processCpuNanos() - clientBefore;
        long decisions = result.getMetadata().getMeasuredOps();
        if (decisions <= 0) {
            return Collections.emptyList();
        }
        return Arrays.asList(
                new ScalarResult(REDIS, redisSeconds * 1e6 / decisions, "us/op", AggregationPolicy.AVG),
                new ScalarResult(CLIENT, clientNanos / 1e3 / decisions, "us/op", AggregationPolicy.AVG));
    }

    /** The Redis server's CPU time so far, system and user, in seconds. */
    static double redisCpuSeconds() {
        return redisCpuSeconds(BenchRedis.uri());
    }

    /** The CPU time so far, system and user, of the Redis server at {@code redisUri}, in seconds. */
    static double redisCpuSeconds(String redisUri) {
        URI uri = URI.create(redisUri);
        try (Jedis admin = new Jedis(uri.getHost(), uri.getPort())) {
            Matcher line = CPU_LINE.matcher(admin.info("cpu"));
            double seconds = 0;
            while (line.find()) {
                // used_cpu_sys_children and the like do not match: only the server process itself counts.
                seconds += Double.parseDouble(line.group(2));
            }
            return seconds;
        }
    }

    /** This JVM's CPU time so far, every thread, in nanoseconds. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
