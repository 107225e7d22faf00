package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sliding-window script at exact instants: the production script, sent the production
 * arguments plus the trailing {@code now} (microseconds) that it reads instead of Redis' TIME.
 *
 * <p>Windows of 10 s are aligned to the epoch and T0 starts one, window number 170,000,000. The
 * script adds one microsecond to every retry-after (its estimate is a fraction and must be past the
 * bound, not at it), so where the bound falls on a whole microsecond the request is admitted one
 * microsecond before its retry-after, and denied two before. Replies are {all_allowed, then per
 * rule: allowed, remaining, retry_after_us, reset_after_us}.
 */
class SlidingWindowClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long WINDOW = 10_000_000;
    private static final Rule TEN_PER_WINDOW = Rule.of(Algorithm.SLIDING_WINDOW, 10, Duration.ofSeconds(10));

    @Test
    void theLimitWithinOneWindowThenTheRetryAfterWhenThePreviousWeighsLittleEnough() {
        String key = redis.key("limit");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_WINDOW);
        assertThat(script.consume(T0, 1, key)).as("the key lives to the end of the next window")
                .containsExactly(1L, 1L, 9L, 0L, 20_000_000L);
        assertThat(script.consume(T0 + 9_999_999, 9, key)).containsExactly(1L, 1L, 0L, 0L, 10_000_001L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("w170000000 10 0");

        // Next window at 1 s: the previous 10 weigh 9, so one more fits. Bound: T0 + 11 s; +1 us.
        assertThat(script.consume(T0 + 9_999_999, 1, key)).containsExactly(0L, 0L, 0L, 1_000_002L, 10_000_001L);
        assertThat(script.peek(T0 + WINDOW + 999_999, 1, key)).as("estimate 9.000001")
                .containsExactly(0L, 0L, 0L, 2L, 9_000_001L);
        assertThat(script.peek(T0 + WINDOW + 1_000_000, 1, key)).as("estimate exactly 9: the bound")
                .containsExactly(1L, 1L, 1L, 0L, 9_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("denials and peeks write nothing").isEqualTo("w170000000 10 0");

        assertThat(script.consume(T0 + WINDOW + 1_000_001, 1, key)).as("at the retry-after: estimate 8.999999")
                .containsExactly(1L, 1L, 0L, 0L, 18_999_999L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("window 170,000,001: 1 now, 10 before").isEqualTo("w170000001 1 10");
    }

    @Test
    void thePreviousWindowWeighsByItsExactOverlap() {
        String key = redis.key("overlap");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_WINDOW);
        script.consume(T0, 10, key);

        // 2.5 s into the next window 75% of the previous one still overlaps: 10 weigh 7.5.
        long at = T0 + WINDOW + 2_500_000;
        assertThat(script.peek(at, 1, key)).as("2.5 left; the previous count is out 7.5 s from now")
                .containsExactly(1L, 1L, 2L, 0L, 7_500_000L);
        assertThat(script.peek(at, 3, key)).as("7.5 + 3 > 10: wait 0.5 s, until the previous 10 weigh 7")
                .containsExactly(0L, 0L, 2L, 500_001L, 7_500_000L);
        assertThat(script.consume(at, 2, key)).as("7.5 + 2").containsExactly(1L, 1L, 0L, 0L, 17_500_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("w170000001 2 10");

        assertThat(script.consume(at, 1, key)).as("7.5 + 2 + 1 > 10: wait until the previous weighs 7")
                .containsExactly(0L, 0L, 0L, 500_001L, 17_500_000L);
        assertThat(script.consume(T0 + WINDOW + 2_999_999, 1, key)).as("it weighs 7.000001")
                .containsExactly(0L, 0L, 0L, 2L, 17_000_001L);
        assertThat(script.consume(T0 + WINDOW + 3_000_001, 1, key)).as("at the retry-after it weighs 6.999999")
                .containsExactly(1L, 1L, 0L, 0L, 16_999_999L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("w170000001 3 10");

        assertThat(script.peek(T0 + 2 * WINDOW + 5_000_000, 1, key)).as("half of the 3 weigh in the window after")
                .containsExactly(1L, 1L, 8L, 0L, 5_000_000L);
        assertThat(script.peek(T0 + 3 * WINDOW, 1, key)).as("two windows on nothing weighs")
                .containsExactly(1L, 1L, 10L, 0L, 0L);
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String wide = redis.key("rules-wide");
        String narrow = redis.key("rules-narrow");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_WINDOW,
                Rule.builder(Algorithm.SLIDING_WINDOW, 2, Duration.ofSeconds(10)).name("narrow").build());

        assertThat(script.consume(T0, 1, wide, narrow))
                .containsExactly(1L, 1L, 9L, 0L, 20_000_000L, 1L, 1L, 0L, 20_000_000L);
        assertThat(script.consume(T0, 1, wide, narrow))
                .containsExactly(1L, 1L, 8L, 0L, 20_000_000L, 1L, 0L, 0L, 20_000_000L);

        // The narrow rule's 2 must weigh at most 1: from halfway through the next window, T0 + 15 s.
        assertThat(script.consume(T0 + 5_000_000, 1, wide, narrow)).as("the narrow rule denies for both")
                .containsExactly(0L, 1L, 8L, 0L, 15_000_000L, 0L, 0L, 10_000_001L, 15_000_000L);
        assertThat(script.consume(T0 + WINDOW + 4_999_999, 1, wide, narrow))
                .containsExactly(0L, 1L, 8L, 0L, 5_000_001L, 0L, 0L, 2L, 5_000_001L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(wide))).as("nothing counted for the rule that had room")
                .isEqualTo("w170000000 2 0");

        assertThat(script.consume(T0 + WINDOW + 5_000_001, 1, wide, narrow)).as("at the narrow rule's retry-after")
                .containsExactly(1L, 1L, 8L, 0L, 14_999_999L, 1L, 0L, 0L, 14_999_999L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(wide))).isEqualTo("w170000001 1 2");
        assertThat(FrozenClockScript.withoutLife(redis.client().get(narrow))).isEqualTo("w170000001 1 2");
    }
}
