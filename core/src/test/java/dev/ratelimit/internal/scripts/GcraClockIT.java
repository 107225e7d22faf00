package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gcra script at exact instants: the production script, sent the production arguments plus the
 * trailing {@code now} (microseconds) that it reads instead of Redis' TIME.
 *
 * <p>10 per 60 s with a burst of 3 spaces requests by T = 6 s and tolerates a TAT up to 3T = 18 s
 * ahead. Replies are {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
 */
class GcraClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final Rule TEN_PER_MINUTE =
            Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(60)).burst(3).build();

    @Test
    void aFreshClientSendsItsBurstThenOnePerIntervalToTheMicrosecond() {
        String key = redis.key("burst");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE);
        assertThat(script.peek(T0, 1, key)).as("a peek writes nothing").containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(redis.client().exists(key)).isFalse();

        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 2L, 0L, 6_000_000L);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 1L, 0L, 12_000_000L);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 0L, 0L, 18_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("the TAT, negated").isEqualTo("-" + (T0 + 18_000_000));

        assertThat(script.consume(T0, 1, key)).as("the TAT is the whole tolerance ahead: one interval to wait")
                .containsExactly(0L, 0L, 0L, 6_000_000L, 18_000_000L);
        assertThat(script.consume(T0 + 5_999_999, 1, key)).containsExactly(0L, 0L, 0L, 1L, 12_000_001L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("denials write nothing").isEqualTo("-" + (T0 + 18_000_000));
        assertThat(script.consume(T0 + 6_000_000, 1, key)).containsExactly(1L, 1L, 0L, 0L, 18_000_000L);

        assertThat(script.consume(T0 + 11_999_999, 1, key)).as("then exactly one per interval")
                .containsExactly(0L, 0L, 0L, 1L, 12_000_001L);
        assertThat(script.consume(T0 + 12_000_000, 1, key)).containsExactly(1L, 1L, 0L, 0L, 18_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("-" + (T0 + 30_000_000));
    }

    @Test
    void theTatCatchesUpWithTheClockExactly() {
        String key = redis.key("catch-up");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE);
        script.consume(T0, 3, key);

        assertThat(script.peek(T0 + 9_000_000, 1, key)).as("TAT 9 s ahead: one interval and a half free")
                .containsExactly(1L, 1L, 1L, 0L, 9_000_000L);
        assertThat(script.peek(T0 + 9_000_000, 2, key)).as("two permits wait until the TAT is 6 s ahead")
                .containsExactly(0L, 0L, 1L, 3_000_000L, 9_000_000L);
        assertThat(script.peek(T0 + 17_999_999, 3, key)).containsExactly(0L, 0L, 2L, 1L, 1L);
        assertThat(script.peek(T0 + 18_000_000, 3, key)).as("caught up: the whole burst again")
                .containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(script.peek(T0 + 3_600_000_000L, 3, key)).as("idling earns no more than the burst")
                .containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(script.consume(T0 + 3_600_000_000L, 3, key)).containsExactly(1L, 1L, 0L, 0L, 18_000_000L);
    }

    @Test
    void anIntervalThatDoesNotDivideTheWindowIsRoundedUpNeverFaster() {
        // 3 per 100 s: T = 33,333,333.3 us, rounded up to 33,333,334; burst 1 allows no bunching.
        String key = redis.key("spacing");
        FrozenClockScript single = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.GCRA, 3, Duration.ofSeconds(100)).burst(1).build());

        assertThat(single.consume(T0, 1, key)).containsExactly(1L, 1L, 0L, 0L, 33_333_334L);
        assertThat(single.consume(T0 + 1, 1, key)).containsExactly(0L, 0L, 0L, 33_333_333L, 33_333_333L);
        assertThat(single.consume(T0 + 33_333_333, 1, key)).containsExactly(0L, 0L, 0L, 1L, 1L);
        assertThat(single.consume(T0 + 33_333_334, 1, key)).containsExactly(1L, 1L, 0L, 0L, 33_333_334L);
        assertThat(single.consume(T0 + 66_666_667, 1, key)).containsExactly(0L, 0L, 0L, 1L, 1L);
        assertThat(single.consume(T0 + 66_666_668, 1, key)).as("the third permit 2T after the first, not 2/3 of 100 s")
                .containsExactly(1L, 1L, 0L, 0L, 33_333_334L);
    }

    /**
     * 7 per 60 s: T = 8,571,428.57 us, rounded up to 8,571,429, so a full burst of 7 takes 60,000,003 us
     * to clear, 3 us past the window. The answers say so (over HTTP, t=61): each cost's retry-after
     * is admitted exactly then and denied a microsecond before, and the whole burst is free exactly
     * at reset. Saying 60 s would send a client back to a denial.
     */
    @Test
    void aRoundedIntervalMayPointPastTheWindowAndTheAnswersSayExactlyHowFar() {
        String key = redis.key("past-the-window");
        long interval = 8_571_429;
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.GCRA, 7, Duration.ofSeconds(60)).burst(7).build());

        assertThat(script.consume(T0, 7, key)).as("the whole burst; the TAT is 7T ahead")
                .containsExactly(1L, 1L, 0L, 0L, 60_000_003L);
        for (long cost = 1; cost <= 7; cost++) {
            assertThat(script.peek(T0, cost, key)).as("cost %d waits %d intervals", cost, cost)
                    .containsExactly(0L, 0L, 0L, cost * interval, 60_000_003L);
            assertThat(script.peek(T0 + cost * interval - 1, cost, key).get(1)).as("cost %d, a microsecond before", cost)
                    .isZero();
            assertThat(script.peek(T0 + cost * interval, cost, key).get(1)).as("cost %d, at its retry-after", cost)
                    .isEqualTo(1L);
        }
        assertThat(script.peek(T0 + 60_000_000, 7, key)).as("at the window the burst is not yet back")
                .containsExactly(0L, 0L, 6L, 3L, 3L);
        assertThat(script.consume(T0 + 60_000_003, 7, key)).as("at reset, all of it")
                .containsExactly(1L, 1L, 0L, 0L, 60_000_003L);
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String fast = redis.key("rules-fast");
        String slow = redis.key("rules-slow");
        // The second rule: 1 per 60 s, burst 1: T = 60 s.
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE,
                Rule.builder(Algorithm.GCRA, 1, Duration.ofSeconds(60)).burst(1).name("slow").build());

        assertThat(script.consume(T0, 1, fast, slow))
                .containsExactly(1L, 1L, 2L, 0L, 6_000_000L, 1L, 0L, 0L, 60_000_000L);
        assertThat(script.consume(T0 + 30_000_000, 1, fast, slow)).as("the slow rule denies for both")
                .containsExactly(0L, 1L, 3L, 0L, 0L, 0L, 0L, 30_000_000L, 30_000_000L);
        assertThat(script.consume(T0 + 59_999_999, 1, fast, slow))
                .containsExactly(0L, 1L, 3L, 0L, 0L, 0L, 0L, 1L, 1L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(fast))).as("the fast rule's TAT did not move").isEqualTo("-" + (T0 + 6_000_000));

        assertThat(script.consume(T0 + 60_000_000, 1, fast, slow)).as("at the slow rule's retry-after")
                .containsExactly(1L, 1L, 2L, 0L, 6_000_000L, 1L, 0L, 0L, 60_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(fast))).isEqualTo("-" + (T0 + 66_000_000));
        assertThat(FrozenClockScript.withoutLife(redis.client().get(slow))).isEqualTo("-" + (T0 + 120_000_000));
    }
}
