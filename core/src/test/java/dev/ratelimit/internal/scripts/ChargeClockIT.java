package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * refund.lua's charges at exact instants: each production limiter script admits with the trailing
 * {@code now}, the charge takes more with the same seam, and a peek (or the stored state) shows the
 * debt exactly: when the client is admitted again, and not a microsecond before. Replies of
 * {@link FrozenClockScript#peek} are {all_allowed, allowed, remaining, retry_after_us, reset_after_us}.
 */
class ChargeClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long SECOND = 1_000_000L;

    @Test
    void gcraMovesItsTatPastTheBurstAndAdmitsOnceItIsBackWithin() {
        String key = redis.key("gcra");
        // T = 6 s, burst 3: a tolerance of 18 s.
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.GCRA, 10, Duration.ofMinutes(1)).burst(3).build());
        List<Long> admitted = script.admit(T0, 1, key);
        assertThat(script.charge(T0, 4, admitted, key)).containsExactly(1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("5 permits of 6 s ahead").isEqualTo("-" + (T0 + 30 * SECOND));
        assertThat(redis.client().pttl(key)).isBetween(1L, 30_000L);
        assertThat(script.peek(T0, 1, key)).as("12 s of debt past the tolerance, then 6 s for the request")
                .containsExactly(0L, 0L, 0L, 18 * SECOND, 30 * SECOND);
        assertThat(script.peek(T0 + 18 * SECOND - 1, 1, key).get(0)).isZero();
        assertThat(script.peek(T0 + 18 * SECOND, 1, key)).containsExactly(1L, 1L, 1L, 0L, 12 * SECOND);
    }

    @Test
    void tokenBucketOwesRefillTimeExactlyWhenTheDebtIsNoWholeMicrosecond() {
        String key = redis.key("token");
        // 7 per minute, burst 7: scale 60,000,000 per permit, refill 7 per microsecond.
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.TOKEN_BUCKET, 7, Duration.ofMinutes(1)).burst(7).build());
        List<Long> admitted = script.admit(T0, 1, key);
        // 6 permits left, 7 charged: one permit (60,000,000) owed, 8,571,428.57 microseconds of refill.
        assertThat(script.charge(T0, 7, admitted, key)).containsExactly(1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("zero at the first whole microsecond past the debt, less its spare 3")
                .isEqualTo("t3 " + (T0 + 8_571_429));
        assertThat(redis.client().pttl(key)).as("until full: the debt and a whole bucket")
                .isBetween(1L, (8_571_429L + 60_000_000L) / 1000 + 1);
        long due = T0 + 17_142_858; // ceil(120,000,000 / 7): the debt and one permit
        assertThat(script.peek(T0, 1, key)).containsExactly(0L, 0L, 0L, due - T0, 68_571_429L);
        assertThat(script.peek(due - 1, 1, key).get(0)).isZero();
        assertThat(script.peek(due, 1, key).subList(0, 4)).containsExactly(1L, 1L, 1L, 0L);
    }

    @Test
    void tokenBucketInDebtKeepsWhatDebtIsLeftWhenARefundComes() {
        String key = redis.key("token-refund");
        // 10 per minute, burst 5: scale 6,000,000, refill 1 per microsecond.
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1)).burst(5).build());
        List<Long> first = script.admit(T0, 1, key);
        List<Long> second = script.admit(T0, 1, key);
        assertThat(script.charge(T0, 5, first, key)).containsExactly(1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("3 left, 5 charged: 2 permits owed, 12 s")
                .isEqualTo("t0 " + (T0 + 12 * SECOND));
        assertThat(script.refund(T0, 1, second, key)).containsExactly(1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("one permit back: 1 owed, 6 s").isEqualTo("t0 " + (T0 + 6 * SECOND));
        assertThat(script.peek(T0, 1, key)).containsExactly(0L, 0L, 0L, 12 * SECOND, 36 * SECOND);
    }

    @Test
    void slidingLogAddsAnEntryOfTheExtraPermitsAndDeniesUntilEnoughLeaveTheWindow() {
        String key = redis.key("log");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)));
        script.admit(T0, 2, key);
        List<Long> second = script.admit(T0 + SECOND, 3, key);
        assertThat(script.charge(T0 + 2 * SECOND, 7, second, key)).containsExactly(1L);
        assertThat(redis.client().zrangeWithScores(key, 0, -1)).extracting(t -> t.getElement() + "@" + (long) t.getScore())
                .containsExactly("2@" + T0, "5@" + (T0 + SECOND), "12@" + (T0 + 2 * SECOND));
        // 12 of 10: 3 must leave for one more, the first two entries (5 permits), the second at T0 + 61 s.
        assertThat(script.peek(T0 + 2 * SECOND, 1, key)).as("remaining never below 0").containsExactly(0L, 0L, 0L, 59 * SECOND, 60 * SECOND);
        assertThat(script.peek(T0 + 61 * SECOND - 1, 1, key).get(0)).isZero();
        assertThat(script.peek(T0 + 61 * SECOND, 1, key)).containsExactly(1L, 1L, 3L, 0L, SECOND);
        assertThat(redis.client().pttl(key)).isBetween(1L, 60_000L);
    }

    @Test
    void slidingLogWhoseWindowRanEmptyStartsAgainWithTheCharge() {
        String key = redis.key("log-empty");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)));
        List<Long> admitted = script.admit(T0, 2, key);
        assertThat(script.charge(T0 + 60 * SECOND, 4, admitted, key)).containsExactly(1L);
        assertThat(redis.client().zrangeWithScores(key, 0, -1)).extracting(t -> t.getElement() + "@" + (long) t.getScore())
                .containsExactly("4@" + (T0 + 60 * SECOND));
        assertThat(script.peek(T0 + 60 * SECOND, 1, key)).containsExactly(1L, 1L, 6L, 0L, 60 * SECOND);
    }

    @Test
    void fixedWindowCountsPastTheLimitInItsWindowAndStartsOneWhenTheCounterIsGone() {
        String key = redis.key("window");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
        List<Long> admitted = script.admit(T0, 3, key);
        long pttl = redis.client().pttl(key);
        assertThat(script.charge(T0, 9, admitted, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("12");
        assertThat(redis.client().pttl(key)).as("the window's end stays where it was").isBetween(1L, pttl);
        assertThat(script.peek(T0, 1, key).subList(0, 3)).as("2 past the limit").containsExactly(0L, 0L, -2L);

        redis.client().del(key);
        assertThat(script.charge(T0, 4, admitted, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).isEqualTo("4");
        assertThat(redis.client().pttl(key)).as("a window of its own").isBetween(59_000L, 60_000L);
    }

    @Test
    void anotherAlgorithmsStateIsLeftAlone() {
        String key = redis.key("foreign");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.GCRA, 10, Duration.ofMinutes(1)));
        List<Long> admitted = script.admit(T0, 1, key);
        redis.client().set(key, "t5 " + T0);
        assertThat(script.charge(T0, 3, admitted, key)).containsExactly(0L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("t5 " + T0);
    }
}
