package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Delayed admissions ({@code maxDelay}: mode '1D&lt;max_us&gt;', limiter-penalty.lua) in each reserving
 * algorithm's production script, at exact instants through the scripts' test clock. A request over
 * the limit whose permits free up within the maximum is taken for that instant, and from then on
 * the client's state answers exactly as if the request had been admitted at that instant: a twin
 * key, where the same request is admitted plainly at the reserved instant, gives the same answer to
 * every later question. A wait past the maximum is a plain denial that writes nothing.
 *
 * <p>Replies are {state, allowed, remaining, retry_after_us, reset_after_us[, receipt]}: state 1
 * admitted, 0 denied, 4 delayed (then retry_after_us is the wait).
 */
class DelayedAdmissionClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long SECOND = 1_000_000L;
    private static final long DELAYED = 4;

    static Stream<Algorithm> algorithms() {
        return Stream.of(Algorithm.GCRA, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET);
    }

    /** 2 per 10 s. */
    private static Rule rule(Algorithm algorithm) {
        return Rule.of(algorithm, 2, Duration.ofSeconds(10));
    }

    private static List<Long> run(Rule rule, String mode, long now, String key) {
        LuaScript script = LuaEvaluator.script(rule.algorithm());
        List<String> args = new ArrayList<>();
        args.add(mode);
        args.add("1");
        args.addAll(rule.algorithm().scriptArguments(rule));
        args.add(Long.toString(now));
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) redis.client().eval(script.source(), Collections.singletonList(key), args);
        return reply;
    }

    private static String delaying(long maxMicros) {
        return "1D" + maxMicros;
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void overTheLimitTheRequestIsTakenForTheInstantItsPermitsFreeUp(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("delayed-" + algorithm.configName());
        String twin = redis.key("twin-" + algorithm.configName());
        for (String each : new String[] {key, twin}) {
            assertThat(run(rule, "1", T0, each).get(0)).isEqualTo(1L);
            assertThat(run(rule, "1", T0, each).get(0)).isEqualTo(1L);
        }
        List<Long> denial = run(rule, "0", T0, key);
        long wait = denial.get(3);
        assertThat(wait).as("over the limit, the permits free up within the window").isBetween(1L, 10 * SECOND + 1);

        List<Long> delayed = run(rule, delaying(60 * SECOND), T0, key);
        assertThat(delayed.subList(0, 4)).as("taken for the instant they free up: a wait, no denial")
                .containsExactly(DELAYED, 1L, 0L, wait);
        assertThat(run(rule, "1", T0 + wait, twin).get(0)).as("the twin's same request, admitted at that instant")
                .isEqualTo(1L);

        // From then on the two answer alike, the delayed one's permits counted from that instant.
        for (long at : new long[] {T0 + 1, T0 + wait - 1, T0 + wait, T0 + wait + 1, T0 + 10 * SECOND,
                T0 + wait + 5 * SECOND, T0 + wait + 10 * SECOND - 1, T0 + wait + 10 * SECOND, T0 + 30 * SECOND}) {
            assertThat(run(rule, "0", at, key)).as("a peek at +%d us", at - T0).isEqualTo(run(rule, "0", at, twin));
        }
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void delayedRequestsQueueBehindEachOtherOnePermitAtATime(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("queue-" + algorithm.configName());
        run(rule, "1", T0, key);
        run(rule, "1", T0, key);
        long previous = 0;
        for (int i = 0; i < 4; i++) {
            List<Long> delayed = run(rule, delaying(60 * SECOND), T0, key);
            assertThat(delayed.get(0)).isEqualTo(DELAYED);
            assertThat(delayed.get(3)).as("each waits behind the one before").isGreaterThan(previous);
            previous = delayed.get(3);
        }
        // 2 per 10 s: the 6th request's instant is 20 s on (a microsecond or two more for the log's
        // strictly increasing stamps, a rounded-up interval for gcra).
        assertThat(previous).isBetween(20 * SECOND, 20 * SECOND + 10);
        assertThat(run(rule, "0", T0 + previous - 1, key).get(0)).as("nothing frees up before the last one's instant")
                .isEqualTo(0L);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void aWaitPastTheMaximumIsAPlainDenialThatWritesNothing(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("toolong-" + algorithm.configName());
        run(rule, "1", T0, key);
        run(rule, "1", T0, key);
        byte[] before = redis.client().dump(key);
        List<Long> denied = run(rule, delaying(SECOND), T0, key);
        assertThat(denied.subList(0, 2)).as("5 s or more to wait, 1 s allowed").containsExactly(0L, 0L);
        assertThat(denied.get(3)).isGreaterThan(SECOND);
        assertThat(redis.client().dump(key)).as("a denial writes nothing").isEqualTo(before);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void withinTheLimitADelayingCallIsAPlainAdmission(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        String key = redis.key("within-" + algorithm.configName());
        assertThat(run(rule, delaying(60 * SECOND), T0, key).subList(0, 4)).containsExactly(1L, 1L, 1L, 0L);
    }

    /**
     * fixed-window decides from its key's TTL, Redis' own clock (see FixedWindowClockIT), until a
     * request is delayed: then the key holds the window and the next one, and the instant the window
     * ends on the script's clock, which this test sets. Only one window ahead.
     */
    @Test
    void fixedWindowDelaysIntoTheNextWindowAndNoFurther() {
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10));
        String key = redis.key("fixed");
        run(rule, "1", T0, key);
        run(rule, "1", T0, key);
        List<Long> third = run(rule, delaying(60 * SECOND), T0, key);
        long wait = third.get(3);
        assertThat(third.subList(0, 3)).as("delayed to the window's end, one permit left then").containsExactly(DELAYED, 1L, 1L);
        assertThat(wait).as("when the key would have expired").isBetween(9 * SECOND, 10 * SECOND + 1000);
        long next = T0 + wait;
        assertThat(third.get(5)).as("its receipt: the instant its window ends").isEqualTo(next + 10 * SECOND);
        assertThat(redis.client().get(key)).isEqualTo("r2:1:" + next);
        assertThat(redis.client().pttl(key)).as("the key lives until the next window ends").isBetween(18_000L, 20_001L);

        assertThat(run(rule, "0", T0 + 1, key).subList(0, 4)).as("a peek: the window is full")
                .containsExactly(0L, 0L, 0L, wait - 1);
        assertThat(run(rule, delaying(60 * SECOND), T0 + 1, key).subList(0, 4)).as("the fourth: the next window's last")
                .containsExactly(DELAYED, 1L, 0L, wait - 1);
        assertThat(redis.client().get(key)).isEqualTo("r2:2:" + next);
        List<Long> fifth = run(rule, delaying(60 * SECOND), T0 + 2, key);
        assertThat(fifth.get(0)).as("two windows ahead: denied").isEqualTo(0L);
        assertThat(fifth.get(3)).as("until the next window ends").isGreaterThan(wait);
        assertThat(redis.client().get(key)).as("a denial writes nothing").isEqualTo("r2:2:" + next);

        assertThat(run(rule, "0", next - 1, key).get(0)).as("the last microsecond of the window").isEqualTo(0L);
        List<Long> atTheTurn = run(rule, "0", next, key);
        assertThat(atTheTurn.subList(0, 3)).as("at its end the next window's count decides: the two delayed")
                .containsExactly(0L, 0L, 0L);
    }

    @Test
    void fixedWindowsNextWindowBecomesAPlainCounterOnItsFirstAdmission() {
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10));
        String key = redis.key("fixed-rolled");
        run(rule, "1", T0, key);
        run(rule, "1", T0, key);
        long next = T0 + run(rule, delaying(60 * SECOND), T0, key).get(3);
        long ttl = redis.client().pttl(key);
        assertThat(run(rule, "1", next + 5, key).subList(0, 3)).as("the next window: the delayed one, then this")
                .containsExactly(1L, 1L, 0L);
        assertThat(redis.client().get(key)).as("a plain counter again").isEqualTo("2");
        assertThat(redis.client().pttl(key)).as("its TTL kept: the next window's end").isBetween(ttl - 2000, ttl);
        assertThat(run(rule, "1", next + 6, key).subList(0, 2)).as("and full").containsExactly(0L, 0L);
    }

    /**
     * Issue 48, item 8: a fixed window holding delayed requests gives back into the window each
     * receipt names, its own or the next: a refund ({@code countStatus}) of an admission of this
     * window, and the permits of a delayed request the container ended before its turn; before and
     * after the switch to the next window.
     */
    @Test
    void fixedWindowGivesBackIntoEitherWindowOfAKeyWithDelayedRequests() {
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10));
        FrozenClockScript script = new FrozenClockScript(redis.client(), rule);
        String key = redis.key("fixed-refunds");
        List<Long> first = script.admit(T0, 1, key);
        script.admit(T0, 1, key);
        List<Long> delayed = run(rule, delaying(60 * SECOND), T0, key);
        List<Long> later = run(rule, delaying(60 * SECOND), T0, key);
        long next = T0 + delayed.get(3);
        assertThat(delayed.get(5)).as("its receipt: the end of the window it is counted in").isEqualTo(next + 10 * SECOND);
        assertThat(redis.client().get(key)).isEqualTo("r2:2:" + next);

        assertThat(script.refund(T0 + 1, 1, first, key)).as("a refund of this window's admission").containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("r1:2:" + next);
        assertThat(script.refund(T0 + 1, 1, delayed, key)).as("a cancelled wait: the next window's").containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("r1:1:" + next);
        assertThat(run(rule, "1", T0 + 2, key).get(0)).as("this window has room again").isEqualTo(1L);

        // The script's clock moves to the switch; the key's TTL, Redis' own clock, moves with it.
        redis.client().pexpire(key, 10_000);
        assertThat(script.refund(next + 1, 1, first, key)).as("this window has ended: nothing").containsExactly(0L);
        assertThat(script.refund(next + 1, 1, later, key)).as("the next window's, after the switch").containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("r2:0:" + next);
        assertThat(run(rule, "1", next + 2, key).subList(0, 3)).as("the next window: empty, and admitting")
                .containsExactly(1L, 1L, 1L);
        assertThat(script.refund(next + 3, 1, later, key)).as("a plain counter again: its own window's receipt still counts")
                .containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("0");
    }

    /** An after-charge (chargeAfter) on a fixed window with delayed requests lands in the window now current. */
    @Test
    void fixedWindowChargesTheWindowCurrentWhenRequestsAreDelayedBeyondIt() {
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
        FrozenClockScript charges = new FrozenClockScript(redis.client(), rule);
        String key = redis.key("fixed-charged");
        List<Long> admitted = charges.admit(T0, 5, key);
        long next = T0 + run(rule, delaying(60 * SECOND), T0, key).get(3);
        assertThat(redis.client().get(key)).isEqualTo("r5:1:" + next);
        assertThat(charges.charge(T0 + 1, 2, admitted, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).as("before the switch: this window's count").isEqualTo("r7:1:" + next);
        assertThat(charges.charge(next, 3, admitted, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).as("from the switch: the next window's").isEqualTo("r7:4:" + next);
        assertThat(run(rule, "0", next, key).subList(0, 3)).as("4 of 5 in the next window: one left").containsExactly(1L, 1L, 1L);
    }

    @Test
    void theKeyLivesUntilTheDelayedPermitsLeaveTheWindow() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 1, Duration.ofSeconds(10));
        String key = redis.key("ttl");
        run(rule, "1", T0, key);
        List<Long> delayed = run(rule, delaying(60 * SECOND), T0, key);
        assertThat(delayed.get(3)).isEqualTo(10 * SECOND);
        assertThat(delayed.get(4)).as("reset: the delayed entry's window ends 20 s on").isEqualTo(20 * SECOND);
        assertThat(redis.client().pttl(key)).as("and the key lives that long").isBetween(19_000L, 20_000L);
    }
}
