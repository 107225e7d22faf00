package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.redis.WarmUp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a limiter built with {@code warmUp(true)} does in Java around the gateway's warm-up: what it
 * asks the gateway to load, whether it reads the overrides, what it logs, and that nothing of it
 * counts as a decision. The warm-up against real Redis: WarmUpIT.
 */
class RateLimiterWarmUpTest {
    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();

    /**
     * The in-memory gateway, with a warm-up whose outcome the test chooses (null: the default, nothing
     * to ready), counting the overrides' reads, which the in-memory gateway leaves uncounted.
     */
    private final class Readied implements RedisGateway {
        final WarmUp outcome;
        final List<List<String>> asked = new ArrayList<>();
        int overridesReads;

        Readied(WarmUp outcome) {
            this.outcome = outcome;
        }

        @Override
        public WarmUp warmUp(List<LuaScript> scripts) {
            List<String> names = new ArrayList<>();
            scripts.forEach(script -> names.add(script.toString()));
            asked.add(names);
            return outcome != null ? outcome : RedisGateway.super.warmUp(scripts);
        }

        @Override
        public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
            if (script.toString().equals("overrides.lua")) {
                overridesReads++;
            }
            return redis.eval(script, keys, args);
        }

        @Override
        public List<ScriptCall.Outcome> evalAll(List<ScriptCall> calls) {
            return redis.evalAll(calls);
        }

        @Override
        public long[] incrementInWindow(String key, long permits, long windowMillis) {
            return redis.incrementInWindow(key, permits, windowMillis);
        }

        @Override
        public long[] readWindow(String key) {
            return redis.readWindow(key);
        }

        @Override
        public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
            return redis.slidingLogInTransaction(key, permits, limit, windowMicros, consume);
        }

        @Override
        public List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
            return redis.hashInTransaction(key, delete, pairs, fields);
        }

        @Override
        public boolean supportsTransactions() {
            return true;
        }

        @Override
        public void delete(List<String> keys) {
            redis.delete(keys);
        }

        @Override
        public void close() {
            redis.close();
        }

        @Override
        public String toString() {
            return "redis://in-memory";
        }
    }

    private RateLimiterBuilder limiter(RedisGateway gateway) {
        return RateLimiter.builder(TestStores.over(gateway)).policyName("api").clock(redis::nanoTime)
                .rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1)));
    }

    @Test
    void withoutItTheBuildAsksRedisNothing() {
        Readied gateway = new Readied(WarmUp.of(1, 3, 3, 3, null, 0));
        limiter(gateway).build();
        assertThat(gateway.asked).isEmpty();
        assertThat(gateway.overridesReads + redis.calls()).isZero();
    }

    @Test
    void aGatewayWithNothingToReadyIsAskedNothingElseAndNothingIsLogged() {
        Readied gateway = new Readied(null);
        try (CapturedErr err = new CapturedErr()) {
            limiter(gateway).warmUp(true).build();
            assertThat(err.text()).isEmpty();
        }
        assertThat(gateway.asked).hasSize(1);
        assertThat(gateway.overridesReads + redis.calls()).as("not even the overrides").isZero();
    }

    @Test
    void aReadyRedisHasTheOverridesReadSoTheFirstDecisionMakesOneRoundTripAndNothingIsCounted() {
        Readied gateway = new Readied(WarmUp.of(1, 3, 3, 3, null, 0));
        RateLimiter limiter;
        String log;
        try (CapturedErr err = new CapturedErr()) {
            limiter = limiter(gateway).onRedisFailure(FailurePolicy.ALLOW).warmUp(true).build();
            log = err.text();
        }
        assertThat(gateway.asked).containsExactly(List.of("fixed-window.lua", "refund.lua"));
        assertThat(gateway.overridesReads).as("the overrides, read").isEqualTo(1);
        assertThat(redis.calls()).as("and nothing else").isZero();
        assertThat(CapturedErr.count(log, "\n")).as(log).isEqualTo(1);
        assertThat(log).contains("INFO dev.ratelimit.RateLimiter - Rate limit policy 'api' is ready for its first "
                + "requests: Redis at redis://in-memory answered; 3 of 3 connections checked on 1 node, 3 scripts "
                + "loaded, overrides read, in ");
        RateLimiterStats stats = limiter.stats();
        assertThat(stats.allowed() + stats.denied() + stats.degraded() + stats.redisErrors()).isZero();

        assertThat(limiter.tryAcquire("client").allowed()).isTrue();
        assertThat(redis.calls(InMemoryRedisGateway.Call.EVAL)).as("the decision").isEqualTo(1);
        assertThat(gateway.overridesReads).as("alone: the overrides read at start are fresh").isEqualTo(1);
    }

    @Test
    void aLimiterOfConcurrencyHasItsReleasesLoadedTooAndTheTransactionTransportNoScript() {
        Readied concurrency = new Readied(WarmUp.of(1, 3, 3, 3, null, 0));
        RateLimiter.builder(TestStores.over(concurrency)).policyName("inflight").clock(redis::nanoTime)
                .rule(Rule.of(Algorithm.CONCURRENCY, 5, Duration.ofMinutes(1))).warmUp(true).build();
        assertThat(concurrency.asked).containsExactly(List.of("concurrency.lua", "refund.lua",
                "concurrency-release.lua"));

        Readied transactions = new Readied(WarmUp.of(1, 3, 3, 0, null, 0));
        limiter(transactions).transport(Transport.TRANSACTION).warmUp(true).build();
        assertThat(transactions.asked).containsExactly(List.of());
    }

    @Test
    void aRedisThatDidNotAnswerIsToldInOneWarningSayingWhatAnswersMeanwhileAndTheOverridesWait() {
        Readied gateway = new Readied(WarmUp.of(1, 0, 3, 0, "Redis at redis://in-memory could not be reached: "
                + "Connection refused", 0));
        for (FailurePolicy policy : FailurePolicy.values()) {
            String log;
            try (CapturedErr err = new CapturedErr()) {
                limiter(gateway).onRedisFailure(policy).warmUp(true).build();
                log = err.text();
            }
            assertThat(CapturedErr.count(log, "\n")).as(log).isEqualTo(1);
            assertThat(log).contains("WARN dev.ratelimit.RateLimiter - Rate limit policy 'api' [REDIS_NOT_READY]: "
                    + "Redis did not answer at start: Redis at redis://in-memory could not be reached: Connection refused. "
                    + "The policy starts anyway; until Redis answers, onRedisFailure=" + policy + " ");
        }
        String log;
        try (CapturedErr err = new CapturedErr()) {
            limiter(gateway).warmUp(true).build();
            log = err.text();
        }
        assertThat(log).contains("until Redis answers, its decisions throw RedisFailureException");
        assertThat(gateway.overridesReads + redis.calls()).as("no overrides read from a Redis that did not answer")
                .isZero();
    }
}
