package dev.ratelimit.bench;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import redis.clients.jedis.Jedis;

/**
 * What {@link HttpBench} reads where a row's measured part starts and where it ends: the server
 * JVM's CPU and collectors' time, Redis' CPU and the script calls Redis has run. A row's figures are
 * the differences between two readings.
 */
final class ServerCounters {
    private final String redisUri;
    long serverCpuNanos;
    long serverGcMillis;
    double redisCpuSeconds;
    long scriptCalls;

    ServerCounters(String redisUri) {
        this.redisUri = redisUri;
    }

    void read(HttpBenchProcess server) throws IOException {
        long[] cpu = server.cpu();
        serverCpuNanos = cpu[0];
        serverGcMillis = cpu[1];
        redisCpuSeconds = CpuPerDecisionProfiler.redisCpuSeconds(redisUri);
        scriptCalls = scriptCalls();
    }

    /** EVALSHA and EVAL calls Redis has run so far. */
    private long scriptCalls() {
        URI uri = URI.create(redisUri);
        try (Jedis admin = new Jedis(uri.getHost(), uri.getPort())) {
            Map<String, Long> stats = RedisMeasurements.commandStats(admin);
            return stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L);
        }
    }
}
