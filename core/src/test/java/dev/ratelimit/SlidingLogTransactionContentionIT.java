package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 37, item 4: {@code transport=transaction} sliding-log under one client's storm, with round
 * trips of about 2 ms (1 ms each way through a {@link FaultProxy}), as a Redis across a network
 * has them; on loopback the race never shows. Two nodes (two stores, each with its small pool and
 * the default {@code redisTimeout}, {@code onRedisFailure=allow}) take 100 concurrent requests each
 * of one client while another client's requests go on beside them on the first node. Every request
 * must be decided by Redis and counted: the admissions are exactly the limit, as the log in Redis
 * holds them; a lost WATCH race is neither an admission nor a breaker failure; and the storm leaves
 * the other client its decisions, by Redis, without waiting past a bound.
 */
class SlidingLogTransactionContentionIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final int STORM_PER_NODE = 100;
    private static final int LIMIT = 120;
    private static final int POOL = 8;
    /** Each of the other client's decisions: well within a second, although the storm has the node's pool busy. */
    private static final Duration CALM_BOUND = Duration.ofMillis(750);

    private FaultProxy proxy;
    private RedisStore nodeA;
    private RedisStore nodeB;

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.host(), redis.port());
        nodeA = RedisStore.connect(RedisSettings.builder(proxy.redisUri()).poolSize(POOL).build());
        nodeB = RedisStore.connect(RedisSettings.builder(proxy.redisUri()).poolSize(POOL).build());
    }

    @AfterEach
    void close() {
        nodeA.close();
        nodeB.close();
        proxy.close();
    }

    private static RateLimiter limiter(RedisStore store, String policy) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                .transport(Transport.TRANSACTION).onRedisFailure(FailurePolicy.ALLOW).localDenyCache(false)
                .rule(Rule.of(Algorithm.SLIDING_LOG, LIMIT, Duration.ofHours(1))).build();
    }

    @Test
    void aStormOfOneClientIsDecidedAndCountedByRedisAndLeavesOtherClientsTheirDecisions() throws Exception {
        String policy = "storm" + System.nanoTime();
        RateLimiter onA = limiter(nodeA, policy);
        RateLimiter onB = limiter(nodeB, policy);
        // Connections and a log each, before the latency: the storm is what is measured.
        assertThat(onA.tryAcquire("warm-a").allowed()).isTrue();
        assertThat(onB.tryAcquire("warm-b").allowed()).isTrue();
        proxy.latency(Duration.ofMillis(1));

        AtomicBoolean breakerOpened = new AtomicBoolean();
        AtomicBoolean stormOver = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(2 * STORM_PER_NODE + 2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            threads.submit(() -> {
                while (!stormOver.get()) {
                    if (!"CLOSED".equals(onA.stats().circuitBreakerState())
                            || !"CLOSED".equals(onB.stats().circuitBreakerState())) {
                        breakerOpened.set(true);
                    }
                    TimeUnit.MILLISECONDS.sleep(1);
                }
                return null;
            });
            List<Future<Decision>> storm = new ArrayList<>();
            for (int i = 0; i < 2 * STORM_PER_NODE; i++) {
                RateLimiter node = i % 2 == 0 ? onA : onB;
                storm.add(threads.submit(() -> {
                    start.await();
                    return node.tryAcquire("storm");
                }));
            }
            AtomicLong slowestCalm = new AtomicLong();
            Callable<List<Decision>> calmClient = () -> {
                start.await();
                List<Decision> decisions = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    long sent = System.nanoTime();
                    decisions.add(onA.tryAcquire("calm-" + (i % 4)));
                    slowestCalm.accumulateAndGet(System.nanoTime() - sent, Math::max);
                }
                return decisions;
            };
            Future<List<Decision>> calm = threads.submit(calmClient);
            start.countDown();

            int admitted = 0;
            int degraded = 0;
            for (Future<Decision> each : storm) {
                Decision decision = each.get(30, TimeUnit.SECONDS);
                admitted += decision.allowed() ? 1 : 0;
                degraded += decision.degraded() ? 1 : 0;
            }
            List<Decision> calmDecisions = calm.get(30, TimeUnit.SECONDS);
            stormOver.set(true);
            long logged = redis.client().zcard(onA.redisKeys("storm").get(0));
            int calmDegraded = 0;
            for (Decision decision : calmDecisions) {
                calmDegraded += decision.degraded() ? 1 : 0;
            }
            System.err.printf("SlidingLogTransactionContentionIT: %d of %d admitted (%d degraded), %d in the log;"
                    + " breaker opened: %s; redis errors A %d, B %d; other client: %d of %d degraded, slowest %d ms%n",
                    admitted, storm.size(), degraded, logged, breakerOpened.get(), onA.stats().redisErrors(),
                    onB.stats().redisErrors(), calmDegraded, calmDecisions.size(),
                    TimeUnit.NANOSECONDS.toMillis(slowestCalm.get()));

            assertThat(degraded).as("storm decisions left to onRedisFailure").isZero();
            assertThat(admitted).as("admissions").isEqualTo(LIMIT);
            assertThat(logged).as("admissions the log in Redis holds").isEqualTo(LIMIT);
            assertThat(breakerOpened.get()).as("a breaker opened").isFalse();
            assertThat(onA.stats().redisErrors() + onB.stats().redisErrors()).as("Redis failures counted").isZero();
            assertThat(calmDegraded).as("the other client's decisions left to onRedisFailure").isZero();
            assertThat(calmDecisions).allSatisfy(decision -> assertThat(decision.allowed()).isTrue());
            assertThat(Duration.ofNanos(slowestCalm.get())).as("the other client's slowest decision")
                    .isLessThan(CALM_BOUND);
        } finally {
            stormOver.set(true);
            threads.shutdownNow();
        }
    }
}
