package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;

/**
 * {@link RateLimiterBuilder#warmUp(boolean)} on a real Redis: the connections a burst uses are open
 * and checked and the scripts loaded before the first decision, nothing is counted as a decision;
 * a Redis that refuses connections, stays silent or answers slowly delays the build by a bounded
 * time, says so in one line, and leaves no connection behind.
 */
class WarmUpIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    /** May run scripts by EVALSHA and EVAL, but not load them with SCRIPT LOAD. */
    @RegisterExtension
    static final AclUser noScriptLoad = new AclUser(redis, "noscriptload", "+@all", "-script|load");

    private static final String READY = "is ready for its first requests";
    private static final String NOT_READY = "[REDIS_NOT_READY]";

    private static RateLimiterBuilder limiter(RedisStore store, String policy) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                .rule(Rule.of(Algorithm.SLIDING_LOG, 50, Duration.ofMinutes(1)));
    }

    private static boolean loaded(String sha1) {
        List<?> exists = (List<?>) redis.client().sendCommand(Protocol.Command.SCRIPT, "EXISTS", sha1);
        return Long.valueOf(1).equals(exists.get(0));
    }

    private static void eventually(LongSupplier value, long expected, String what) throws InterruptedException {
        // Redis (or the proxy) lists a closed connection until it has read the close: wait for that.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (value.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(value.getAsLong()).as(what).isEqualTo(expected);
    }

    @Test
    void theConnectionsABurstUsesAreOpenAndItsScriptsLoadedBeforeTheFirstDecision() throws Exception {
        redis.client().sendCommand(Protocol.Command.SCRIPT, "FLUSH");
        long before = redis.connectionsNamed("ratelimit");
        String policy = "warm" + System.nanoTime();
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter;
            String log;
            try (CapturedErr err = new CapturedErr()) {
                limiter = limiter(store, policy).warmUp(true).build();
                log = err.text();
            }
            assertThat(log).as(log).contains("INFO dev.ratelimit.RateLimiter - Rate limit policy '" + policy + "' " + READY
                    + ": Redis at ", " answered; 3 of 3 connections checked on 1 node",
                    "3 scripts loaded", "overrides read").doesNotContain("WARN");
            assertThat(redis.connectionsNamed("ratelimit") - before).as("two round trips under way and one spare")
                    .isEqualTo(3);
            assertThat(loaded(LuaEvaluator.script(Algorithm.SLIDING_LOG).sha1())).isTrue();
            RateLimiterStats stats = limiter.stats();
            assertThat(stats.allowed() + stats.denied() + stats.degraded()).as("no decision counted").isZero();

            long noScript = redis.failedCalls("evalsha");
            List<Decision> decisions = burst(limiter, 100);

            assertThat(decisions.stream().filter(Decision::allowed).count()).isEqualTo(50);
            assertThat(decisions.stream().filter(Decision::degraded).count()).isZero();
            assertThat(redis.failedCalls("evalsha")).as("no NOSCRIPT: single calls and batches found their script")
                    .isEqualTo(noScript);
            assertThat(redis.connectionsNamed("ratelimit") - before).as("the burst opened none").isEqualTo(3);
        }
        eventually(() -> redis.connectionsNamed("ratelimit"), before, "closing the store closed every connection");
    }

    @Test
    void withoutCoalescingEachDecisionOfABurstHoldsAConnectionSoThePoolIsFilled() throws Exception {
        long before = redis.connectionsNamed("ratelimit");
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(redis.uri()).poolSize(7).coalescing(false)
                .build())) {
            limiter(store, "alone" + System.nanoTime()).warmUp(true).build();
            assertThat(redis.connectionsNamed("ratelimit") - before).isEqualTo(7);
        }
        eventually(() -> redis.connectionsNamed("ratelimit"), before, "closing the store closed every connection");
    }

    @Test
    void aUserWhoMayNotLoadScriptsIsReadyAllTheSameAndDecisionsLoadTheirScript() throws Exception {
        redis.client().sendCommand(Protocol.Command.SCRIPT, "FLUSH");
        String policy = "noload" + System.nanoTime();
        try (RedisStore store = RedisStore.connect(noScriptLoad.uri()); CapturedErr err = new CapturedErr()) {
            RateLimiter limiter = limiter(store, policy).warmUp(true).build();
            assertThat(err.text()).contains(READY, "3 of 3 connections checked", "0 scripts loaded")
                    .doesNotContain("WARN", "ERROR");
            assertThat(limiter.tryAcquire("client").degraded()).isFalse();
        }
    }

    @Test
    void aRedisThatRefusesConnectionsFailsTheWarmUpAtOnceAndTheFailurePolicyAnswersUntilRedisDoes() throws Exception {
        String policy = "refused" + System.nanoTime();
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port())) {
            proxy.refuse();
            try (RedisStore store = RedisStore.connect(proxy.redisUri())) {
                RateLimiter limiter;
                String log;
                try (CapturedErr err = new CapturedErr()) {
                    limiter = limiter(store, policy).onRedisFailure(FailurePolicy.DENY).warmUp(true).build();
                    log = err.text();
                }
                assertThat(CapturedErr.count(log, "WARN")).as(log).isEqualTo(1);
                assertThat(log).contains("WARN dev.ratelimit.RateLimiter - Rate limit policy '" + policy + "' " + NOT_READY
                        + ": Redis did not answer at start: Redis at " + proxy.redisUri() + " could not be reached: ",
                        "The policy starts anyway; until Redis answers, onRedisFailure=deny refuses its requests")
                        .doesNotContain(READY);
                Decision refused = limiter.tryAcquire("client");
                assertThat(refused.degraded()).isTrue();
                assertThat(refused.allowed()).isFalse();

                proxy.heal();
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (limiter.peek("client").degraded() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(limiter.tryAcquire("client").degraded()).as("Redis decides once it answers").isFalse();
            }
            eventually(proxy::openConnections, 0, "closing the store closed every connection");
        }
    }

    @Test
    void aSilentRedisCostsTheStoreOneTimeoutNotOnePerLimiterAndAWarmUpAfterItAnswersReadiesItAgain()
            throws Exception {
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port())) {
            proxy.blackhole();
            try (RedisStore store = RedisStore.connect(RedisSettings.builder(proxy.redisUri())
                    .timeout(Duration.ofMillis(300)).build()); CapturedErr err = new CapturedErr()) {
                limiter(store, "silent-a").warmUp(true).build();
                assertThat(proxy.connectionsAccepted()).as("stopped at its first connection").isEqualTo(1);
                assertThat(err.text()).contains("policy 'silent-a' " + NOT_READY, "Read timed out",
                        "until Redis answers, its decisions throw RedisFailureException");

                RateLimiter second = limiter(store, "silent-b").onRedisFailure(FailurePolicy.ALLOW).warmUp(true).build();
                assertThat(proxy.connectionsAccepted()).as("the failure stands for the store's next limiter")
                        .isEqualTo(1);
                assertThat(err.text()).contains("policy 'silent-b' " + NOT_READY,
                        "an earlier warm-up found it so, and it has not answered since",
                        "onRedisFailure=allow lets its requests through, unlimited");

                proxy.heal();
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (second.peek("client").degraded() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                limiter(store, "silent-c").warmUp(true).build();
                assertThat(err.text()).contains("policy 'silent-c' " + READY, "3 of 3 connections checked");
            }
            eventually(proxy::openConnections, 0, "closing the store closed every connection");
        }
    }

    @Test
    void aSlowRedisGetsNoFurtherStepOnceTheBudgetOfTwoTimeoutsIsSpent() throws Exception {
        // Each reply takes 600 ms, inside the 1 s timeout. A connection's handshake and PING take two
        // round trips at least, so the second connection could start at 5 round trips (3 s) at the
        // earliest, past the budget of 2 s: one connection and at most two scripts, and no failure.
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port()).latency(Duration.ofMillis(300));
                RedisStore store = RedisStore.connect(RedisSettings.builder(proxy.redisUri())
                        .timeout(Duration.ofSeconds(1)).build());
                CapturedErr err = new CapturedErr()) {
            limiter(store, "slow" + System.nanoTime()).warmUp(true).build();
            assertThat(err.text()).contains(READY, "1 of 3 connections checked").doesNotContain("WARN")
                    .doesNotContain("3 scripts loaded");
        }
    }

    private static List<Decision> burst(RateLimiter limiter, int requests) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(requests);
        try {
            CountDownLatch ready = new CountDownLatch(requests);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Decision>> answers = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                answers.add(threads.submit(() -> {
                    ready.countDown();
                    go.await();
                    return limiter.tryAcquire("global");
                }));
            }
            ready.await();
            go.countDown();
            List<Decision> decisions = new ArrayList<>();
            for (Future<Decision> answer : answers) {
                decisions.add(answer.get());
            }
            return decisions;
        } finally {
            threads.shutdownNow();
        }
    }
}
