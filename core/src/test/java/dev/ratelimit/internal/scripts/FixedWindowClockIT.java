package dev.ratelimit.internal.scripts;

import static dev.ratelimit.internal.scripts.FixedWindowAt.counter;
import static dev.ratelimit.internal.scripts.FixedWindowAt.gone;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fixed-window script at exact instants, 3 per 60 s unless said otherwise.
 *
 * <p>fixed-window calls no TIME: its clock is its key's expiry, and these tests move time by
 * setting the counter's remaining TTL ({@link FixedWindowAt}), the last instant they can set being
 * 1 ms before the end (a TTL of 0 deletes the key). Nothing sleeps and nothing is timed.
 *
 * <p>Replies are {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
 */
class FixedWindowClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final Rule THREE_PER_MINUTE = Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(60));

    @Test
    void aWindowStartsAtItsFirstAdmissionAndItsRetryAfterIsWhenTheKeyIsGone() {
        String key = redis.key("window");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(script.consumeOnRedisClock(1, key)).as("a whole window from now")
                .containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
        assertThat(redis.client().pttl(key)).isBetween(1L, 60_000L);

        assertThat(run(script, script.args(true, 2), counter(key, 1, 45_000))).as("45 s before the window ends")
                .containsExactly(1L, 1L, 0L, 0L, 45_001_000L);
        assertThat(redis.client().get(key)).isEqualTo("3");

        assertThat(run(script, script.args(true, 1), counter(key, 3, 45_000)))
                .as("full: the key goes 45.001 s from now")
                .containsExactly(0L, 0L, 0L, 45_001_000L, 45_001_000L);
        assertThat(redis.client().get(key)).as("denials write nothing").isEqualTo("3");
        assertThat(run(script, script.args(true, 1), counter(key, 3, 1))).as("the last millisecond that can be set")
                .containsExactly(0L, 0L, 0L, 2_000L, 2_000L);

        assertThat(run(script, script.args(true, 1), gone(key))).as("once the key is gone: a new window")
                .containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
    }

    @Test
    void aTrailingClockArgumentIsIgnored() {
        String key = redis.key("ignored");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
        assertThat(run(script, script.args(true, 1, T0), counter(key, 2, 30_000)))
                .containsExactly(1L, 1L, 0L, 0L, 30_001_000L);
        assertThat(run(script, script.args(false, 1, T0), counter(key, 3, 30_000)))
                .containsExactly(0L, 0L, 0L, 30_001_000L, 30_001_000L);
    }

    @Test
    void aPeekReportsTheWindowAndCountsNothing() {
        String key = redis.key("peek");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(run(script, script.args(false, 1), gone(key))).containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(redis.client().exists(key)).isFalse();

        assertThat(run(script, script.args(false, 1), counter(key, 2, 30_000)))
                .containsExactly(1L, 1L, 1L, 0L, 30_001_000L);
        assertThat(run(script, script.args(false, 2), counter(key, 2, 30_000)))
                .containsExactly(0L, 0L, 1L, 30_001_000L, 30_001_000L);
        assertThat(redis.client().get(key)).isEqualTo("2");
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String wide = redis.key("rules-wide");
        String narrow = redis.key("rules-narrow");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE,
                Rule.builder(Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(20)).name("narrow").build());

        assertThat(run(script, script.args(true, 1), counter(wide, 1, 50_000), counter(narrow, 1, 20_000)))
                .as("the narrow rule denies for both")
                .containsExactly(0L, 1L, 2L, 0L, 50_001_000L, 0L, 0L, 20_001_000L, 20_001_000L);
        assertThat(redis.client().get(wide)).as("nothing counted for the rule that had room").isEqualTo("1");

        assertThat(run(script, script.args(true, 1), counter(wide, 1, 50_000), gone(narrow)))
                .as("once its window is over")
                .containsExactly(1L, 1L, 1L, 0L, 50_001_000L, 1L, 0L, 0L, 20_000_000L);
        assertThat(redis.client().get(wide)).isEqualTo("2");
        assertThat(redis.client().get(narrow)).isEqualTo("1");
    }

    private static List<Long> run(FrozenClockScript script, List<String> args, FixedWindowAt.Counter... counters) {
        return FixedWindowAt.run(redis.client(), script, args, counters);
    }
}
