package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.RedisStoreExtension;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * {@link BatchedCalls} on a real Redis: one-rule decisions joined into one call of their script's
 * batch form ({@code limiter-batch.lua}) answer each caller as its own call would have, one after
 * the other, including several decisions of one key in one batch.
 */
class BatchedCallsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long LIMIT = 5;

    static Stream<Arguments> rules() {
        List<Arguments> rules = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            if (!algorithm.holdsLeases()) {
                rules.add(Arguments.of(algorithm.configName(), Rule.of(algorithm, LIMIT, Duration.ofHours(1))));
            }
        }
        rules.add(Arguments.of("calendar", Rule.calendar(LIMIT, CalendarPeriod.DAY, ZoneOffset.UTC).build()));
        return rules.stream();
    }

    /**
     * Twelve decisions of 1 or 2 permits on three keys in one script call: each key admits exactly
     * while its permits fit in the limit, in the order sent, and each reply says what is left.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void decisionsJoinedInOneCallMeetOneAfterTheOther(String name, Rule rule) {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri()); Jedis admin = new Jedis(redis.host(), redis.port())) {
            RedisGateway gateway = StoreAccess.gateway(store);
            LuaEvaluator evaluator = new LuaEvaluator(gateway, List.of(rule));
            List<ScriptCall> calls = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            List<Long> permits = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String key = RedisKeys.key(redis.keyPrefix(), "joined-" + name, "client-" + i % 3);
                long cost = 1 + i % 2;
                keys.add(key);
                permits.add(cost);
                calls.add(evaluator.call(List.of(key), new long[] {cost}, true));
            }
            long scriptCallsBefore = scriptCalls();

            List<ScriptCall.Outcome> outcomes = BatchedCalls.run(calls, ((NodeGateway) gateway)::pipelined);

            assertThat(scriptCalls() - scriptCallsBefore).as("script calls for 12 decisions").isEqualTo(1);
            Map<String, Long> used = new HashMap<>();
            for (int i = 0; i < calls.size(); i++) {
                long before = used.getOrDefault(keys.get(i), 0L);
                List<Long> reply = outcomes.get(i).reply();
                if (before + permits.get(i) <= LIMIT) {
                    used.put(keys.get(i), before + permits.get(i));
                    assertThat(reply).as("decision %d", i).hasSize(7).startsWith(1L, 1L, LIMIT - before - permits.get(i));
                } else {
                    assertThat(reply).as("decision %d", i).hasSize(5).startsWith(0L, 0L);
                }
            }
            assertThat(used.values()).allSatisfy(total -> assertThat(total).isBetween(LIMIT - 1, LIMIT));
        }
    }

    /** Peeks are joined apart from admissions, and other scripts' calls go as they are, in one pipeline. */
    @Test
    void peeksAdmissionsAndOtherScriptsAreEachAnsweredInOrder() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri()); Jedis admin = new Jedis(redis.host(), redis.port())) {
            RedisGateway gateway = StoreAccess.gateway(store);
            LuaEvaluator gcra = new LuaEvaluator(gateway, List.of(Rule.of(Algorithm.GCRA, LIMIT, Duration.ofHours(1))));
            LuaEvaluator window = new LuaEvaluator(gateway, List.of(Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofHours(1))));
            String a = RedisKeys.key(redis.keyPrefix(), "mixed", "a");
            String b = RedisKeys.key(redis.keyPrefix(), "mixed", "b");
            List<ScriptCall> calls = List.of(
                    gcra.call(List.of(a), new long[] {2}, true),
                    gcra.call(List.of(a), new long[] {1}, false),
                    window.call(List.of(b), new long[] {1}, true),
                    gcra.call(List.of(a), new long[] {1}, true),
                    window.call(List.of(b), new long[] {1}, true),
                    gcra.call(List.of(a), new long[] {1}, false));
            long scriptCallsBefore = scriptCalls();

            List<ScriptCall.Outcome> outcomes = BatchedCalls.run(calls, ((NodeGateway) gateway)::pipelined);

            // gcra's admissions, gcra's peeks, fixed-window's admissions: three calls.
            assertThat(scriptCalls() - scriptCallsBefore).isEqualTo(3);
            assertThat(outcomes.get(0).reply()).startsWith(1L, 1L, LIMIT - 2);
            assertThat(outcomes.get(3).reply()).startsWith(1L, 1L, LIMIT - 3);
            assertThat(outcomes.get(2).reply()).startsWith(1L, 1L, 2L);
            assertThat(outcomes.get(4).reply()).startsWith(1L, 1L, 1L);
            // The peeks were joined together and ran after the admissions' call: both see 3 used.
            assertThat(outcomes.get(1).reply()).startsWith(1L, 1L, LIMIT - 3);
            assertThat(outcomes.get(5).reply()).startsWith(1L, 1L, LIMIT - 3);
        }
    }

    /**
     * A decision whose script raises an error (a calendar rule whose period starts, from this JVM's
     * clock, do not hold Redis' time: {@code calendar-window.lua} refuses it) fails alone, as its
     * own call would: the decisions joined with it, before and after, get their own answers, and
     * what one admitted is what it was told. Joined, the error used to fail the whole call: the
     * decisions before it had taken their permits but were told Redis failed, and those after it
     * were never decided.
     */
    @Test
    void aScriptErrorInOneJoinedDecisionFailsThatDecisionAlone() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RedisGateway gateway = StoreAccess.gateway(store);
            LuaEvaluator evaluator = new LuaEvaluator(gateway, List.of(Rule.calendar(LIMIT, CalendarPeriod.DAY,
                    ZoneOffset.UTC).build()));
            String before = RedisKeys.key(redis.keyPrefix(), "calendar-error", "before");
            String broken = RedisKeys.key(redis.keyPrefix(), "calendar-error", "broken");
            String after = RedisKeys.key(redis.keyPrefix(), "calendar-error", "after");
            ScriptCall good = evaluator.call(List.of(before), new long[] {1}, true);
            ScriptCall wrongClock = evaluator.call(List.of(broken), new long[] {1}, true);
            List<String> args = new ArrayList<>(wrongClock.args);
            // Four period starts in 1970: what a JVM clock far off from Redis' would send.
            args.set(args.size() - 1, "0,86400000000,172800000000,259200000000");
            List<ScriptCall> calls = List.of(good, new ScriptCall(wrongClock.script, wrongClock.keys, args),
                    evaluator.call(List.of(after), new long[] {1}, true));

            List<ScriptCall.Outcome> outcomes = BatchedCalls.run(calls, ((NodeGateway) gateway)::pipelined);

            assertThat(outcomes.get(0).reply()).startsWith(1L, 1L, LIMIT - 1);
            assertThatThrownBy(() -> outcomes.get(1).reply()).isInstanceOf(RedisFailureException.class)
                    .hasMessageContaining("calendar-window.lua").hasMessageContaining("do not hold Redis time")
                    .satisfies(e -> assertThat(((RedisFailureException) e).redisAnswered()).isTrue());
            assertThat(outcomes.get(2).reply()).startsWith(1L, 1L, LIMIT - 1);
            // Each admission counted once, the refused decision nothing.
            assertThat(peek(gateway, evaluator, before)).startsWith(1L, 1L, LIMIT - 1);
            assertThat(peek(gateway, evaluator, after)).startsWith(1L, 1L, LIMIT - 1);
            assertThat(peek(gateway, evaluator, broken)).startsWith(1L, 1L, LIMIT);
        }
    }

    private static List<Long> peek(RedisGateway gateway, LuaEvaluator evaluator, String key) {
        ScriptCall peek = evaluator.call(List.of(key), new long[] {1}, false);
        return gateway.eval(peek.script, peek.keys, peek.args);
    }

    /** After SCRIPT FLUSH (a restart, a failover) the batch form is loaded by EVAL, and nothing counts twice. */
    @Test
    void aFlushedBatchFormGoesOutAgainWithItsSource() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri()); Jedis admin = new Jedis(redis.host(), redis.port())) {
            RedisGateway gateway = StoreAccess.gateway(store);
            LuaEvaluator evaluator = new LuaEvaluator(gateway, List.of(Rule.of(Algorithm.SLIDING_LOG, LIMIT, Duration.ofHours(1))));
            String key = RedisKeys.key(redis.keyPrefix(), "flushed", "c");
            List<ScriptCall> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(evaluator.call(List.of(key), new long[] {1}, true));
            }
            admin.scriptFlush();

            List<ScriptCall.Outcome> outcomes = BatchedCalls.run(calls, ((NodeGateway) gateway)::pipelined);

            for (int i = 0; i < 4; i++) {
                assertThat(outcomes.get(i).reply()).startsWith(1L, 1L, LIMIT - 1 - i);
            }
            // A peek: the four admissions counted once each.
            assertThat(gateway.eval(LuaEvaluator.script(Algorithm.SLIDING_LOG), List.of(key),
                    evaluator.call(List.of(key), new long[] {1}, false).args)).startsWith(1L, 1L, LIMIT - 4);
        }
    }

    /** Coalescing off: every call in a round trip and a script call of its own, as before it existed. */
    @Test
    void withCoalescingOffEachDecisionIsAScriptCallOfItsOwn() throws Exception {
        RedisSettings settings = RedisSettings.builder(redis.uri()).coalescing(false).build();
        try (RedisStore store = RedisStore.connect(settings); Jedis admin = new Jedis(redis.host(), redis.port())) {
            NodeGateway gateway = (NodeGateway) StoreAccess.gateway(store);
            LuaEvaluator evaluator = new LuaEvaluator(gateway, List.of(Rule.of(Algorithm.GCRA, 1_000_000, Duration.ofHours(1))));
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                String key = RedisKeys.key(redis.keyPrefix(), "alone", "c" + t);
                threads.add(new Thread(() -> {
                    for (int i = 0; i < 100; i++) {
                        gateway.eval(LuaEvaluator.script(Algorithm.GCRA), List.of(key),
                                evaluator.call(List.of(key), new long[] {1}, true).args);
                    }
                }));
            }
            long scriptCallsBefore = scriptCalls();
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join(60_000);
            }
            assertThat(scriptCalls() - scriptCallsBefore).isEqualTo(1600);
            assertThat(gateway.coalescedCalls()).isZero();
        }
    }

    /** Script calls that ran: EVALSHA and EVAL, less those answered NOSCRIPT (a script's first use here). */
    private static long scriptCalls() {
        return redis.calls("evalsha", "eval") - redis.failedCalls("evalsha", "eval");
    }
}
