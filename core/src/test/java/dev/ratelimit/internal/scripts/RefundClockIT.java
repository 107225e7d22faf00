package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * refund.lua at exact instants: each production limiter script admits with the trailing
 * {@code now}, then refund.lua gives that admission back with the same seam, and a peek (or the
 * stored state) shows exactly what came back. Replies of {@link FrozenClockScript#peek} are
 * {all_allowed, allowed, remaining, retry_after_us, reset_after_us}.
 */
class RefundClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long MINUTE = 60_000_000L;

    @Test
    void slidingLogRemovesTheEntryAndLowersTheLaterTotals() {
        String key = redis.key("log");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)));
        script.admit(T0, 2, key);
        List<Long> second = script.admit(T0 + 1_000_000, 3, key);
        assertThat(second.get(5)).as("the receipt is the entry's score").isEqualTo(T0 + 1_000_000);
        script.admit(T0 + 2_000_000, 4, key);
        assertThat(log(key)).containsExactly("2@" + T0, "5@" + (T0 + 1_000_000), "9@" + (T0 + 2_000_000));

        assertThat(script.refund(T0 + 3_000_000, 3, second, key)).containsExactly(1L);
        assertThat(log(key)).as("the entry gone, the later total lowered by its 3 permits")
                .containsExactly("2@" + T0, "6@" + (T0 + 2_000_000));
        assertThat(script.peek(T0 + 3_000_000, 1, key)).containsExactly(1L, 1L, 4L, 0L, MINUTE - 1_000_000);
        assertThat(script.peek(T0 + MINUTE, 1, key)).as("the first entry has left: only the 4 remain")
                .containsExactly(1L, 1L, 6L, 0L, 2_000_000L);
        assertThat(script.refund(T0 + 3_000_000, 3, second, key)).as("a second refund finds no such entry")
                .containsExactly(0L);
        assertThat(log(key)).hasSize(2);
    }

    @Test
    void slidingLogGivesNothingBackOnceTheEntryLeftTheWindow() {
        String key = redis.key("log-late");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)));
        List<Long> first = script.admit(T0, 2, key);
        script.admit(T0 + 30_000_000, 3, key);
        assertThat(script.refund(T0 + MINUTE, 2, first, key)).containsExactly(0L);
        assertThat(log(key)).containsExactly("2@" + T0, "5@" + (T0 + 30_000_000));
        assertThat(script.peek(T0 + MINUTE, 1, key)).containsExactly(1L, 1L, 7L, 0L, 30_000_000L);
    }

    @Test
    void fixedWindowDecrementsOnlyItsOwnWindowAndNeverBelowZero() {
        String key = redis.key("fixed");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1)));
        List<Long> first = script.admit(T0, 2, key);
        assertThat(first.get(5)).as("the receipt: the window's end on the admission's clock").isEqualTo(T0 + MINUTE);
        List<Long> second = script.admit(T0, 3, key);
        assertThat(script.refund(T0 + 1_000, 3, second, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("2");
        redis.client().set(key, "1");
        redis.client().pexpire(key, 59_000);
        assertThat(script.refund(T0 + 1_000_000, 2, first, key)).as("never below 0").containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("0");

        redis.client().del(key);
        List<Long> next = script.admit(T0 + MINUTE, 1, key);
        assertThat(next.get(5)).isEqualTo(T0 + 2 * MINUTE);
        assertThat(script.refund(T0 + MINUTE, 1, first, key)).as("another window: the old receipt changes nothing")
                .containsExactly(0L);
        assertThat(redis.client().get(key)).isEqualTo("1");
    }

    @Test
    void slidingWindowLowersTheCurrentWindowOnly() {
        String key = redis.key("sliding-window");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_WINDOW, 10, Duration.ofMinutes(1)));
        long start = (T0 / MINUTE) * MINUTE;
        List<Long> first = script.admit(start + 1_000_000, 4, key);
        assertThat(first.get(5)).as("the receipt: the window's number").isEqualTo(T0 / MINUTE);
        script.admit(start + 2_000_000, 3, key);
        assertThat(script.refund(start + 3_000_000, 4, first, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).as("the window, its count, the previous, the life begun at the first")
                .isEqualTo("w" + T0 / MINUTE + " 3 0 " + (start + 1_000_000));

        List<Long> late = script.admit(start + 4_000_000, 2, key);
        assertThat(script.refund(start + MINUTE, 2, late, key)).as("its window is the previous one now")
                .containsExactly(0L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("w" + T0 / MINUTE + " 5 0");

        redis.client().del(key);
        script.admit(start + 5_000_000, 1, key);
        assertThat(script.refund(start + 5_000_000, 1, late, key)).as("a new life of the key: nothing from before it")
                .containsExactly(0L);
    }

    @Test
    void tokenBucketGetsItsTokensBackCappedAtTheBurst() {
        String key = redis.key("token");
        // 10 per minute, burst 5: a token every 6 s.
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1)).burst(5).build());
        script.admit(T0, 3, key);
        List<Long> second = script.admit(T0, 2, key);
        assertThat(script.refund(T0 + 3_000_000, 2, second, key)).containsExactly(1L);
        assertThat(script.peek(T0 + 3_000_000, 1, key)).as("2 back, and half a token refilled")
                .containsExactly(1L, 1L, 2L, 0L, 15_000_000L);
        List<Long> third = script.admit(T0 + 3_000_000, 1, key);
        assertThat(script.refund(T0 + 27_000_000, 1, third, key)).as("full again before the refund: nothing")
                .containsExactly(0L);
    }

    @Test
    void leakyBucketLowersItsLevelNeverBelowEmpty() {
        String key = redis.key("leaky");
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.LEAKY_BUCKET, 10, Duration.ofMinutes(1)).burst(5).build());
        List<Long> first = script.admit(T0, 3, key);
        List<Long> second = script.admit(T0, 2, key);
        assertThat(script.refund(T0 + 3_000_000, 2, second, key)).containsExactly(1L);
        assertThat(script.peek(T0 + 3_000_000, 1, key)).as("level 3 less half a leak")
                .containsExactly(1L, 1L, 2L, 0L, 15_000_000L);
        assertThat(script.refund(T0 + 3_000_000, 2, second, key)).as("a second time: no longer in the bucket")
                .containsExactly(0L);
        assertThat(script.refund(T0 + 3_000_000, 5, first, key)).as("never below empty: the key goes")
                .containsExactly(1L);
        assertThat(redis.client().exists(key)).isFalse();
    }

    @Test
    void gcraMovesItsTatBackNeverBeforeNow() {
        String key = redis.key("gcra");
        // T = 6 s, burst 3.
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.GCRA, 10, Duration.ofMinutes(1)).burst(3).build());
        List<Long> first = script.admit(T0, 2, key);
        List<Long> second = script.admit(T0, 1, key);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("-" + (T0 + 18_000_000));
        assertThat(script.refund(T0 + 1_000_000, 1, second, key)).containsExactly(1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("-" + (T0 + 12_000_000));
        assertThat(script.refund(T0 + 1_000_000, 1, second, key)).as("a second time: its permits are no longer there")
                .containsExactly(0L);
        assertThat(script.refund(T0 + 10_000_000, 2, first, key)).as("not before now: caught up, the key goes")
                .containsExactly(1L);
        assertThat(redis.client().exists(key)).isFalse();
        assertThat(script.peek(T0 + 10_000_000, 3, key)).containsExactly(1L, 1L, 3L, 0L, 0L);
    }

    @Test
    void severalRulesAreRefundedInOneCall() {
        String hour = redis.key("two:1h");
        String minute = redis.key("two:1m");
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.SLIDING_LOG, 100, Duration.ofHours(1)).name("1h").build(),
                Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)).name("1m").build());
        List<Long> admitted = script.admit(T0, 4, hour, minute);
        assertThat(admitted).as("per rule a receipt and a life").hasSize(13);
        assertThat(script.refund(T0 + 1, 4, admitted, hour, minute)).containsExactly(1L, 1L);
        assertThat(redis.client().exists(hour, minute)).as("both logs emptied").isZero();
    }

    private List<String> log(String key) {
        List<String> entries = new ArrayList<>();
        redis.client().zrangeWithScores(key, 0, -1)
                .forEach(t -> entries.add(t.getElement() + "@" + String.format("%.0f", t.getScore())));
        return entries;
    }
}
