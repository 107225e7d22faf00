package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * A Redis that dies, stalls or runs out of connections: the failure policy decides, nobody waits
 * longer than the timeout, nobody waits at all while the breaker is open, and exact limiting comes
 * back on its own.
 *
 * <p>Run by a subclass per Redis version the build proves.
 */
abstract class RedisOutageContract {

    /** The server under test, registered by the subclass; these tests stop and start it. */
    abstract RedisServerExtension redis();

    private static final Duration TIMEOUT = Duration.ofMillis(400);
    /** Room for a noisy two-core machine on top of the timeout; still far from "waits for ever". */
    private static final Duration MARGIN = Duration.ofMillis(600);

    private RedisStore store(int poolSize) {
        return RedisStore.connect(RedisSettings.builder(redis().uri()).timeout(TIMEOUT).poolSize(poolSize).build());
    }

    private RateLimiter limiter(RedisStore store, String policy, FailurePolicy onFailure) {
        return RateLimiter.builder(store).keyPrefix(redis().keyPrefix()).policyName(policy).onRedisFailure(onFailure)
                .localDenyCache(false).rule(Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1))).build();
    }

    private record Timed(Decision decision, long millis) {
    }

    private static Timed timed(RateLimiter limiter, String key) {
        long start = System.nanoTime();
        Decision decision = limiter.tryAcquire(key);
        return new Timed(decision, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Sends CLIENT PAUSE on a connection of its own, which the pause does not block. */
    private void pauseRedis(Duration duration) {
        try (Jedis admin = new Jedis(redis().host(), redis().port())) {
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE",
                    Long.toString(duration.toMillis()), "ALL");
        }
    }

    /** Waits until Redis decides again (a decision that is not degraded); returns how long that took. */
    private static Duration untilExactAgain(RateLimiter limiter) throws InterruptedException {
        long start = System.nanoTime();
        while (limiter.tryAcquire("probe-" + System.nanoTime()).degraded()) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(10)) {
                break;
            }
            Thread.sleep(20);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void assertExact(RateLimiter limiter, String key) {
        int admitted = 0;
        for (int i = 0; i < 8; i++) {
            Decision decision = limiter.tryAcquire(key);
            assertThat(decision.degraded()).isFalse();
            admitted += decision.allowed() ? 1 : 0;
        }
        assertThat(admitted).as("exactly the limit again").isEqualTo(5);
    }

    @Test
    void aKilledRedisIsDecidedByThePolicyAndExactLimitingResumesWithinTwoSeconds() throws Exception {
        try (RedisStore store = store(8)) {
            RateLimiter allowing = limiter(store, "killed", FailurePolicy.ALLOW);
            RateLimiter denying = limiter(store, "killed-deny", FailurePolicy.DENY);
            assertThat(allowing.tryAcquire("warm").degraded()).isFalse();

            redis().stop();

            ExecutorService threads = Executors.newFixedThreadPool(8);
            List<Future<Timed>> answers = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                answers.add(threads.submit(() -> timed(allowing, "c" + (n % 10))));
            }
            for (Future<Timed> answer : answers) {
                Timed timed = answer.get(30, TimeUnit.SECONDS);
                assertThat(timed.decision().allowed()).isTrue();
                assertThat(timed.decision().degraded()).isTrue();
                assertThat(timed.millis()).isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toMillis());
            }
            threads.shutdown();
            Decision denied = denying.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.degraded()).isTrue();
            assertThat(denied.retryAfterSeconds()).isEqualTo(1);
            assertThat(allowing.redisFailures()).isEqualTo(200);

            redis().start();

            Duration recovery = untilExactAgain(allowing);
            assertThat(recovery).as("exact limiting resumes").isLessThanOrEqualTo(Duration.ofSeconds(2));
            assertExact(allowing, "after-restart");
            assertThat(redis().client().scriptExists(
                    dev.ratelimit.internal.scripts.LuaScriptAccess.sha1(Algorithm.SLIDING_LOG), "any"))
                    .as("the restarted Redis had no script: it was loaded again").isTrue();
        }
    }

    @Test
    void aStalledRedisCostsOneTimeoutPerCallUntilTheBreakerOpensThenNothing() throws Exception {
        try (RedisStore store = store(8)) {
            // Why each call was left to the policy: a timeout, or the open breaker that never calls.
            List<String> failures = new CopyOnWriteArrayList<>();
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis().keyPrefix()).policyName("stalled")
                    .onRedisFailure(FailurePolicy.ALLOW).localDenyCache(false)
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)))
                    .listener(new RateLimitListener() {
                        @Override
                        public void onFailure(String policyName, String key, RedisFailureException cause) {
                            failures.add(cause.getMessage());
                        }
                    }).build();
            assertThat(limiter.tryAcquire("warm").degraded()).isFalse();

            pauseRedis(Duration.ofMillis(3000));

            List<Timed> calls = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                calls.add(timed(limiter, "c"));
            }
            for (Timed call : calls) {
                assertThat(call.decision().allowed()).isTrue();
                assertThat(call.decision().degraded()).isTrue();
            }
            // Three timeouts open the breaker. Usually three calls, one each; but when the overrides are
            // due (every 2 s, read on the decision path) one call times out reading them too, and two
            // calls open it. Seen on a loaded machine, where the pause began late.
            assertThat(failures).hasSize(10);
            int waited = 0;
            while (waited < failures.size() && !failures.get(waited).contains("(circuit open)")) {
                waited++;
            }
            assertThat(waited).as("calls that met the stalled Redis before the breaker opened").isBetween(2, 3);
            for (Timed call : calls.subList(0, waited)) {
                assertThat(call.millis()).as("until the breaker opens: a timeout each, two with the overrides read")
                        .isBetween(TIMEOUT.toMillis() - 50, TIMEOUT.multipliedBy(2).plus(MARGIN).toMillis());
            }
            // Decided at once: the open breaker sends nothing to Redis, so nothing can wait. Asserted by
            // the breaker's refusal, not by a stopwatch, which on a busy machine times the scheduler.
            assertThat(failures.subList(waited, 10)).as("breaker open: Redis not called")
                    .allMatch(message -> message.contains("(circuit open)"));

            Duration recovery = untilExactAgain(limiter);
            assertThat(recovery).as("the pause ends within 3 s, then one cool-down").isLessThanOrEqualTo(
                    Duration.ofMillis(3000 + 1000 + 1000));
            assertExact(limiter, "after-stall");
        }
    }

    @Test
    void anExhaustedPoolWaitsNoLongerThanItsBoundAndThePolicyDecides() throws Exception {
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(redis().uri()).timeout(Duration.ofSeconds(2))
                .poolSize(1).poolMaxWait(Duration.ofMillis(200)).build())) {
            RateLimiter limiter = limiter(store, "pool", FailurePolicy.DENY);
            assertThat(limiter.tryAcquire("warm").degraded()).isFalse();
            pauseRedis(Duration.ofMillis(1000));

            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                // Two calls at once: whichever borrows the only connection first waits for the paused
                // Redis; the other finds none to be had. (Which one does is the scheduler's business:
                // the test asks only that there be one of each, not that a sleep made it "a" and "b".)
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Timed>> calls = new ArrayList<>();
                for (String key : List.of("a", "b")) {
                    calls.add(threads.submit(() -> {
                        start.await();
                        return timed(limiter, key);
                    }));
                }
                start.countDown();
                List<Timed> answered = new ArrayList<>();
                for (Future<Timed> call : calls) {
                    answered.add(call.get(10, TimeUnit.SECONDS));
                }
                // The holder is answered by Redis after the pause, within its 2 s timeout: not degraded.
                assertThat(answered).as("one call holds the connection, one finds none")
                        .filteredOn(call -> call.decision().degraded()).hasSize(1);
                Timed waiter = answered.stream().filter(call -> call.decision().degraded()).findFirst().orElseThrow();

                assertThat(waiter.decision().allowed()).as("onRedisFailure=deny").isFalse();
                assertThat(waiter.millis()).as("bounded by the pool wait").isBetween(150L, 200L + MARGIN.toMillis());
            } finally {
                threads.shutdownNow();
            }
        }
    }
}
