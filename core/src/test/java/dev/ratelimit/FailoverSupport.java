package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Traffic that keeps flowing while a test fails Redis over, and the checks made afterwards. */
final class FailoverSupport {
    private FailoverSupport() {
    }

    /** What the traffic saw while it ran. */
    record Traffic(int decisions, int degraded) {
    }

    /**
     * Runs {@code failover} while four threads keep asking the limiter; every call must come back
     * with a decision (never an exception).
     */
    static Traffic during(RateLimiter limiter, Runnable failover) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger decisions = new AtomicInteger();
        AtomicInteger degraded = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            workers.add(threads.submit(() -> {
                int i = 0;
                while (running.get()) {
                    Decision decision = limiter.tryAcquire("client-" + thread + "-" + (i++ % 50));
                    decisions.incrementAndGet();
                    if (decision.degraded()) {
                        degraded.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            Thread.sleep(300);
            failover.run();
            Thread.sleep(300);
        } finally {
            running.set(false);
            for (Future<?> worker : workers) {
                worker.get(30, TimeUnit.SECONDS);
            }
            threads.shutdown();
        }
        return new Traffic(decisions.get(), degraded.get());
    }

    /** Waits (up to 20 s) until Redis decides again rather than the failure policy. */
    static Duration untilExact(RateLimiter limiter, String keyPrefix) throws InterruptedException {
        long start = System.nanoTime();
        while (limiter.tryAcquire(keyPrefix + System.nanoTime()).degraded()
                && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
            Thread.sleep(50);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** What a burst got: admitted by Redis, and decided by the failure policy. */
    record Burst(int admittedByRedis, int degraded) {
    }

    /**
     * {@code size} requests for one client released together over the limiters in turn (each limiter
     * a node of its own, with its own store), each on a thread of its own.
     */
    static Burst burst(List<RateLimiter> nodes, String key, int size) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(size);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Decision>> answers = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                RateLimiter limiter = nodes.get(i % nodes.size());
                answers.add(threads.submit(() -> {
                    start.await();
                    return limiter.tryAcquire(key);
                }));
            }
            start.countDown();
            int admitted = 0;
            int degraded = 0;
            for (Future<Decision> answer : answers) {
                Decision decision = answer.get(30, TimeUnit.SECONDS);
                degraded += decision.degraded() ? 1 : 0;
                admitted += decision.allowed() && !decision.degraded() ? 1 : 0;
            }
            return new Burst(admitted, degraded);
        } finally {
            threads.shutdownNow();
        }
    }

    /** A burst after a quiet period: none of it may be left to the failure policy; how many Redis admitted. */
    static int quietBurst(List<RateLimiter> nodes, String key, int size) throws Exception {
        Burst burst = burst(nodes, key, size);
        assertThat(burst.degraded()).as("decisions of the burst left to the failure policy").isZero();
        return burst.admittedByRedis();
    }

    /** Decisions for many clients from each limiter at once, so that each store holds several idle connections. */
    static void warm(List<RateLimiter> nodes, String keyPrefix) throws Exception {
        for (RateLimiter node : nodes) {
            for (int round = 0; round < 4; round++) {
                ExecutorService threads = Executors.newFixedThreadPool(8);
                try {
                    List<Future<Decision>> answers = new ArrayList<>();
                    for (int i = 0; i < 32; i++) {
                        String key = keyPrefix + round + "-" + i;
                        answers.add(threads.submit(() -> node.tryAcquire(key)));
                    }
                    for (Future<Decision> answer : answers) {
                        assertThat(answer.get(30, TimeUnit.SECONDS).degraded()).isFalse();
                    }
                } finally {
                    threads.shutdownNow();
                }
            }
        }
    }

    /** 100 concurrent requests for one client through two limiters: exactly the limit admitted. */
    static void assertExact(RateLimiter onA, RateLimiter onB, String key, long limit) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                RateLimiter limiter = i % 2 == 0 ? onA : onB;
                Callable<Boolean> call = () -> {
                    start.await();
                    Decision decision = limiter.tryAcquire(key);
                    assertThat(decision.degraded()).isFalse();
                    return decision.allowed();
                };
                answers.add(threads.submit(call));
            }
            start.countDown();
            int admitted = 0;
            for (Future<Boolean> answer : answers) {
                admitted += answer.get(30, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(limit);
        } finally {
            threads.shutdownNow();
        }
    }
}
