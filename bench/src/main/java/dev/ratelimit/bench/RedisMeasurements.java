package dev.ratelimit.bench;

import static dev.ratelimit.bench.BenchmarkReport.ALGORITHMS;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.bench.peers.BenchLimiter;
import dev.ratelimit.bench.peers.NaiveSortedSetLimiter;
import dev.ratelimit.bench.peers.Peers;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * What JMH cannot measure, read from Redis itself: commands per decision and Redis CPU per call (from
 * {@code INFO commandstats} deltas), memory per client key ({@code MEMORY USAGE}) and the server's version.
 */
final class RedisMeasurements {
    /** Callers at once when Redis CPU per call is measured: enough to keep Redis busy. */
    private static final int LOAD_THREADS = 8;

    private final boolean smoke;
    private final String redisUri;

    RedisMeasurements(boolean smoke, String redisUri) {
        this.smoke = smoke;
        this.redisUri = redisUri;
    }

    /** Client commands (EVALSHA/EVAL) and all commands Redis ran, per decision, from INFO commandstats deltas. */
    Map<String, double[]> commandsPerDecision() {
        Map<String, double[]> perDecision = new LinkedHashMap<>();
        int decisions = smoke ? 50 : 1000;
        try (Jedis admin = admin(); RedisStore store = store()) {
            for (String algorithm : ALGORITHMS) {
                RateLimiter limiter = limiter(store, "commands-" + algorithm, algorithm, 1_000_000, Duration.ofHours(1));
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

    static Map<String, Long> commandStats(Jedis admin) {
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
    Map<String, Double> redisMicrosPerCall() throws InterruptedException {
        Map<String, Double> micros = new LinkedHashMap<>();
        int calls = smoke ? 100 : 40_000;
        try (Jedis admin = admin(); RedisStore store = store();
                RedisClient pool = Peers.pooledJedis(redisUri, LOAD_THREADS, "bench-redis-cpu")) {
            String floor = pool.scriptLoad("return 1");
            String setPx = pool.scriptLoad("return redis.call('SET', KEYS[1], '1', 'PX', '60000')");
            micros.put("floor", scriptMicros(admin, calls,
                    i -> pool.evalsha(floor, List.of("cpu-floor:" + i % Traffic.DISTINCT_KEYS), List.of())));
            micros.put("set-px", scriptMicros(admin, calls,
                    i -> pool.evalsha(setPx, List.of("cpu-set-px:" + i % Traffic.DISTINCT_KEYS), List.of())));
            for (String algorithm : ALGORITHMS) {
                RateLimiter limiter = limiter(store, "cpu-" + algorithm, algorithm, 1_000_000_000L, BenchRedis.WINDOW);
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

    /**
     * MEMORY USAGE of one client's key after one decision and after `limit` decisions, and of another's
     * after `limit / 10` decisions of cost 10; key names 30 bytes.
     */
    Map<String, long[]> memoryPerKey() {
        Map<String, long[]> memory = new LinkedHashMap<>();
        int limit = 100;
        try (Jedis admin = admin(); RedisStore store = store()) {
            for (String algorithm : ALGORITHMS) {
                // "ratelimit:" + "memory" + ":{" + "client-0001" + "}" = 30 bytes.
                RateLimiter limiter = limiter(store, "memory", algorithm, limit, Duration.ofHours(1));
                String client = "client-0001";
                String key = limiter.redisKeys(client).get(0);
                limiter.reset(client);
                limiter.tryAcquire(client);
                long afterOne = memoryUsage(admin, key);
                for (int i = 1; i < limit; i++) {
                    limiter.tryAcquire(client);
                }
                long afterLimit = memoryUsage(admin, key);
                // The same permits in fewer, costlier requests: sliding-log keeps one entry per request.
                String costly = "client-0002";
                String costlyKey = limiter.redisKeys(costly).get(0);
                limiter.reset(costly);
                for (int i = 0; i < limit / 10; i++) {
                    limiter.tryAcquire(costly, 10);
                }
                long afterCostly = memoryUsage(admin, costlyKey);
                memory.put(algorithm, new long[] {key.length(), afterOne, afterLimit, afterCostly});
                limiter.reset(client);
                limiter.reset(costly);
            }
        }
        return memory;
    }

    private static long memoryUsage(Jedis admin, String key) {
        Long usage = admin.memoryUsage(key, 0);
        return usage == null ? -1 : usage;
    }

    /** @return {@code redis_version} of {@code INFO server}, or {@code "?"} */
    String redisVersion() {
        try (Jedis admin = admin()) {
            Matcher version = Pattern.compile("redis_version:(\\S+)").matcher(admin.info("server"));
            return version.find() ? version.group(1) : "?";
        }
    }

    private Jedis admin() {
        return new Jedis(URI.create(redisUri));
    }

    private RedisStore store() {
        return RedisStore.connect(BenchRedis.settings(redisUri).build());
    }

    /** One rule of {@code algorithm}, without the local deny cache, so that every decision reaches Redis. */
    private static RateLimiter limiter(RedisStore store, String policy, String algorithm, long limit, Duration window) {
        return RateLimiter.builder(store).policyName(policy).localDenyCache(false)
                .rule(Rule.of(Algorithm.fromConfigName(algorithm), limit, window)).build();
    }
}
