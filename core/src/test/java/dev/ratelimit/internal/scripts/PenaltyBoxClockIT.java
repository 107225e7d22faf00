package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.BatchForms;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The penalty box (limiter-penalty.lua) in each algorithm's production script, at exact instants
 * through the scripts' test clock: the denial that finds a client over its limit puts it in the box
 * for exactly the penalty, every decision in the box is denied with the penalty left and writes
 * nothing (the box is not extended), and the client is admitted when the box ends.
 *
 * <p>fixed-window decides from its key's TTL, not the clock (see FixedWindowClockIT): its window is
 * ended here by deleting its counter, the instant Redis would have.
 *
 * <p>Replies are {state, allowed, remaining, retry_after_us, reset_after_us}: state 1 admitted, 0
 * denied by the limit, 2 denied and put in the box, 3 denied in the box.
 */
class PenaltyBoxClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long PENALTY_US = 60_000_000L;
    private static final Duration PENALTY = Duration.ofSeconds(60);

    static Stream<Algorithm> algorithms() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.SLIDING_WINDOW, Algorithm.TOKEN_BUCKET,
                Algorithm.LEAKY_BUCKET, Algorithm.GCRA);
    }

    /** 2 per 10 s with a 60 s penalty: the limit frees up long before the penalty ends. */
    private static Rule rule(Algorithm algorithm) {
        return Rule.builder(algorithm, 2, Duration.ofSeconds(10)).penalty(PENALTY).build();
    }

    private static List<Long> run(Rule rule, boolean consume, long now, String key) {
        LuaScript script = LuaEvaluator.script(rule.algorithm());
        List<String> args = new ArrayList<>();
        args.add((consume ? "1" : "0") + "P" + rule.penalty().toMillis());
        args.add("1");
        args.addAll(rule.algorithm().scriptArguments(rule));
        args.add(Long.toString(now));
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) redis.client().eval(script.source(),
                Arrays.asList(key, RedisKeys.penaltyBox(key)), args);
        return reply.subList(0, 5);
    }

    /** Everything Redis holds for the client: its state, the box, and the box's expiry (whole seconds, so a ms may pass). */
    private static List<Object> stored(String key) {
        String box = RedisKeys.penaltyBox(key);
        byte[] dump = redis.client().dump(key);
        return Arrays.asList(dump == null ? null : Arrays.toString(dump), redis.client().get(box),
                (redis.client().pttl(box) + 999) / 1000);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void overTheLimitTheClientIsShutOutForExactlyThePenaltyWithoutWritesThenAdmitted(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("box-" + algorithm.configName());
        String box = RedisKeys.penaltyBox(key);
        assertThat(run(rule, true, T0, key).get(0)).isEqualTo(1L);
        assertThat(run(rule, true, T0, key).get(0)).isEqualTo(1L);
        assertThat(redis.client().exists(box)).as("no box while within the limit").isFalse();

        assertThat(run(rule, true, T0, key)).as("over the limit: denied, and in the box for the whole penalty")
                .containsExactly(2L, 0L, 0L, PENALTY_US, PENALTY_US);
        assertThat(redis.client().get(box)).as("the box holds its end").isEqualTo(Long.toString(T0 + PENALTY_US));
        assertThat(redis.client().pttl(box)).as("and expires then").isBetween(PENALTY.toMillis() - 1000, PENALTY.toMillis());

        List<Object> before = stored(key);
        assertThat(run(rule, true, T0 + 1, key)).as("in the box: the penalty left")
                .containsExactly(3L, 0L, 0L, PENALTY_US - 1, PENALTY_US - 1);
        assertThat(run(rule, true, T0 + 30_000_000L, key)).as("past the limit's own window, still in the box")
                .containsExactly(3L, 0L, 0L, 30_000_000L, 30_000_000L);
        assertThat(run(rule, false, T0 + 45_000_000L, key)).as("a peek sees the box")
                .containsExactly(3L, 0L, 0L, 15_000_000L, 15_000_000L);
        assertThat(stored(key)).as("denials in the box write nothing and do not extend it").isEqualTo(before);

        if (algorithm == Algorithm.FIXED_WINDOW) {
            redis.client().del(key);
        }
        assertThat(run(rule, true, T0 + PENALTY_US - 1, key).subList(0, 4)).as("the last microsecond of the penalty")
                .containsExactly(3L, 0L, 0L, 1L);
        assertThat(run(rule, true, T0 + PENALTY_US, key).subList(0, 2)).as("admitted when the penalty ends")
                .containsExactly(1L, 1L);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void withoutConsumingNothingIsBoxedAndWithinTheLimitNothingIsWritten(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("peek-" + algorithm.configName());
        run(rule, true, T0, key);
        run(rule, true, T0, key);
        assertThat(run(rule, false, T0, key).subList(0, 2)).as("a peek over the limit is a plain denial")
                .containsExactly(0L, 0L);
        assertThat(redis.client().exists(RedisKeys.penaltyBox(key))).as("a peek boxes nobody").isFalse();
    }

    @Test
    void whenTheLimitFreesUpAfterThePenaltyTheRetryAfterIsTheLimitsOwn() {
        // 1 per hour, 5 s penalty: back after 5 s, the client would be over its limit and boxed anew.
        Rule rule = Rule.builder(Algorithm.SLIDING_LOG, 1, Duration.ofHours(1)).penalty(Duration.ofSeconds(5)).build();
        String key = redis.key("later");
        assertThat(run(rule, true, T0, key).get(0)).isEqualTo(1L);
        List<Long> boxed = run(rule, true, T0 + 1_000_000L, key);
        assertThat(boxed.get(0)).isEqualTo(2L);
        assertThat(boxed.get(3)).as("the limit frees up an hour after the admission").isEqualTo(3_599_000_000L);
        assertThat(redis.client().get(RedisKeys.penaltyBox(key))).isEqualTo(Long.toString(T0 + 6_000_000L));
        assertThat(run(rule, true, T0 + 2_000_000L, key)).as("in the box, the later of the two")
                .containsExactly(3L, 0L, 0L, 3_598_000_000L, 3_598_000_000L);
    }

    @Test
    void theCoalescedBatchFormKeepsEachDecisionsBoxApart() {
        Rule rule = rule(Algorithm.GCRA);
        String boxed = redis.key("batch-boxed");
        String free = redis.key("batch-free");
        run(rule, true, T0, boxed);
        run(rule, true, T0, boxed);
        run(rule, true, T0, boxed);
        assertThat(redis.client().exists(RedisKeys.penaltyBox(boxed))).isTrue();

        LuaScript batch = BatchForms.of(LuaEvaluator.script(Algorithm.GCRA));
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) redis.client().eval(batch.source(), List.of(boxed, free, free, free, RedisKeys.penaltyBox(boxed), RedisKeys.penaltyBox(free),
                        RedisKeys.penaltyBox(free), RedisKeys.penaltyBox(free)), batchArgs(rule, 4, T0 + 1_000_000L));
        // Per decision its length, then {state, allowed, remaining, retry, reset[, receipt, life]}.
        assertThat(reply.subList(0, 6)).as("the boxed client: the penalty left")
                .containsExactly(5L, 3L, 0L, 0L, PENALTY_US - 1_000_000L, PENALTY_US - 1_000_000L);
        assertThat(reply.get(6)).as("the other client's first admission").isEqualTo(7L);
        assertThat(reply.subList(7, 9)).containsExactly(1L, 1L);
        assertThat(reply.get(14)).isEqualTo(7L);
        assertThat(reply.subList(15, 17)).as("its second").containsExactly(1L, 1L);
        assertThat(reply.subList(22, 25)).as("its third: over the limit, and boxed").containsExactly(5L, 2L, 0L);
        assertThat(redis.client().get(RedisKeys.penaltyBox(free))).isEqualTo(Long.toString(T0 + 1_000_000L + PENALTY_US));
    }

    private static List<String> batchArgs(Rule rule, int decisions, long now) {
        List<String> args = new ArrayList<>();
        args.add("1P" + rule.penalty().toMillis());
        for (int i = 0; i < decisions; i++) {
            args.add("1");
            args.addAll(rule.algorithm().scriptArguments(rule));
        }
        args.add(Long.toString(now));
        return args;
    }
}
