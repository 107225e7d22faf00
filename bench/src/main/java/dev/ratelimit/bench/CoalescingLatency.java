package dev.ratelimit.bench;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What coalescing adds to a decision's latency, which JMH's throughput mode does not show: closed-loop
 * callers deciding on distinct keys with coalescing on and then off, every call timed.
 */
final class CoalescingLatency {
    /** p50 and p99 of one run, in microseconds, and the decisions per second it reached. */
    static final class Result {
        final double p50Micros;
        final double p99Micros;
        final double perSecond;

        Result(double p50Micros, double p99Micros, double perSecond) {
            this.p50Micros = p50Micros;
            this.p99Micros = p99Micros;
            this.perSecond = perSecond;
        }
    }

    private CoalescingLatency() {
    }

    /**
     * @param threads callers at once
     * @param time how long each caller decides, after a warm-up of a fifth of it
     */
    static Result run(String redisUri, boolean coalescing, int threads, Duration time) throws InterruptedException {
        try (RedisStore store = store(redisUri, coalescing)) {
            RateLimiter limiter = limiter(store, "latency-" + coalescing);
            decide(limiter, threads, time.dividedBy(5));
            List<long[]> samples = new ArrayList<>();
            long started = System.nanoTime();
            int[] counts = decide(limiter, threads, time, samples);
            double seconds = (System.nanoTime() - started) / 1e9;
            long total = 0;
            for (int count : counts) {
                total += count;
            }
            long[] all = new long[(int) total];
            int at = 0;
            for (int t = 0; t < samples.size(); t++) {
                System.arraycopy(samples.get(t), 0, all, at, counts[t]);
                at += counts[t];
            }
            Arrays.sort(all);
            return new Result(percentile(all, 0.50) / 1e3, percentile(all, 0.99) / 1e3, total / seconds);
        }
    }

    /**
     * One caller's decisions per second with coalescing on over those with it off. A lone caller takes
     * the same path either way, so JMH's two cells of one thread differ by the machine's drift between
     * them (up to ±20 % here); this interleaves short turns of each, so drift falls on both alike.
     *
     * @param turns turns of each, alternating
     * @param turn how long each turn decides
     */
    static double oneCallerRatio(String redisUri, int turns, Duration turn) throws InterruptedException {
        try (RedisStore on = store(redisUri, true); RedisStore off = store(redisUri, false)) {
            RateLimiter coalesced = limiter(on, "one-caller-on");
            RateLimiter alone = limiter(off, "one-caller-off");
            decide(coalesced, 1, turn);
            decide(alone, 1, turn);
            long onDecisions = 0;
            long offDecisions = 0;
            for (int i = 0; i < turns; i++) {
                onDecisions += decide(coalesced, 1, turn, new ArrayList<>())[0];
                offDecisions += decide(alone, 1, turn, new ArrayList<>())[0];
            }
            return (double) onDecisions / offDecisions;
        }
    }

    private static RedisStore store(String redisUri, boolean coalescing) {
        return RedisStore.connect(BenchRedis.settings(redisUri)
                .poolSize(BenchRedis.POOL_SIZE).coalescing(coalescing).build());
    }

    private static RateLimiter limiter(RedisStore store, String policy) {
        return RateLimiter.builder(store).policyName(policy)
                .rule(Rule.of(Algorithm.GCRA, 1_000_000_000L, BenchRedis.WINDOW)).build();
    }

    private static void decide(RateLimiter limiter, int threads, Duration time) throws InterruptedException {
        decide(limiter, threads, time, new ArrayList<>());
    }

    /** Runs the callers for {@code time}; each one's call durations go into its own array. @return calls per caller */
    private static int[] decide(RateLimiter limiter, int threads, Duration time, List<long[]> samples)
            throws InterruptedException {
        int[] counts = new int[threads];
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] mine = new long[1 << 18];
            samples.add(mine);
            int index = t;
            callers.add(new Thread(() -> {
                KeyCursor keys = new KeyCursor();
                int n = 0;
                while (!stop.get() && n < mine.length) {
                    long start = System.nanoTime();
                    limiter.tryAcquire(keys.next(Traffic.DISTINCT));
                    mine[n++] = System.nanoTime() - start;
                }
                counts[index] = n;
                done.countDown();
            }, "latency-" + t));
        }
        callers.forEach(Thread::start);
        Thread.sleep(time.toMillis());
        stop.set(true);
        done.await();
        return counts;
    }

    private static double percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
