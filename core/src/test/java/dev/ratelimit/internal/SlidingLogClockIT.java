package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sliding-log script at exact instants: the production script, sent the production arguments
 * plus the trailing {@code now} (microseconds) that it reads instead of Redis' TIME. Besides the
 * limit and its exact retry-after, this reaches the cases real traffic only meets after a failover to
 * a replica whose clock is behind: two admissions in one microsecond, and a clock that steps back.
 *
 * <p>Replies are {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
 */
class SlidingLogClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long SECOND = 1_700_000_000L;
    private static final long T0 = SECOND * 1_000_000;
    private static final Duration WINDOW = Duration.ofSeconds(60);

    @Test
    void twoAdmissionsInOneMicrosecondAreBothCounted() {
        String key = redis.key("same-microsecond");
        List<Long> first = admitAt(SECOND, 5, key, 1, 10);
        List<Long> second = admitAt(SECOND, 5, key, 1, 10);

        assertThat(first.subList(0, 3)).containsExactly(1L, 1L, 9L);
        assertThat(second.subList(0, 3)).as("allowed, remaining").containsExactly(1L, 1L, 8L);
        assertThat(redis.client().zcard(key)).isEqualTo(2);
        long now = SECOND * 1_000_000 + 5;
        assertThat(redis.client().zrange(key, 0, -1))
                .as("the taken name pushes the second permit after the newest entry")
                .containsExactly(now + "-1", (now + 1) + "-1");
        assertThat(second.get(4)).as("its reset counts from that later stamp").isEqualTo(60_000_001L);
    }

    @Test
    void aRequestOfSeveralPermitsWhoseNamesAreTakenKeepsEveryPermit() {
        String key = redis.key("several-taken");
        admitAt(SECOND, 7, key, 2, 10);
        List<Long> reply = admitAt(SECOND, 7, key, 3, 10);

        assertThat(reply.subList(0, 3)).containsExactly(1L, 1L, 5L);
        assertThat(redis.client().zcard(key)).as("2 + 3 permits, none overwritten").isEqualTo(5);
        List<Long> denied = admitAt(SECOND, 7, key, 6, 10);
        assertThat(denied.get(0)).as("only 5 are left").isZero();
        assertThat(denied.get(2)).isEqualTo(5L);
    }

    @Test
    void aClockThatSteppedBackNeitherLosesPermitsNorTheLimit() {
        String key = redis.key("stepped-back");
        long later = SECOND * 1_000_000;
        long earlier = later - 1_000_000;
        admitAt(SECOND, 0, key, 1, 3);
        admitAt(SECOND - 1, 0, key, 1, 3);
        assertThat(redis.client().pttl(key)).as("one window from this admission").isBetween(59_000L, 60_000L);

        List<Long> third = admitAt(SECOND - 1, 0, key, 1, 3);
        assertThat(third.subList(0, 3)).containsExactly(1L, 1L, 0L);
        assertThat(redis.client().zrange(key, 0, -1)).as("the taken name moves the permit after the newest")
                .containsExactly(earlier + "-1", later + "-1", (later + 1) + "-1");
        assertThat(redis.client().pttl(key)).as("one window after that newest stamp, a second ahead of this clock")
                .isBetween(60_000L, 61_001L);
        assertThat(admitAt(SECOND - 1, 0, key, 1, 3).get(0)).as("the limit holds across the step").isZero();
        assertThat(redis.client().zcard(key)).isEqualTo(3);
    }

    @Test
    void retryAfterIsWhenTheOldestPermitLeavesTheWindowToTheMicrosecond() {
        String key = redis.key("retry");
        FrozenClockScript script = script(3);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(script.consume(T0 + 10_000_000, 1, key)).containsExactly(1L, 1L, 1L, 0L, 60_000_000L);
        assertThat(script.consume(T0 + 20_000_000, 1, key)).containsExactly(1L, 1L, 0L, 0L, 60_000_000L);

        assertThat(script.consume(T0 + 30_000_000, 1, key))
                .as("denied: the permit of T0 leaves at T0 + 60 s; the newest, of T0 + 20 s, at T0 + 80 s")
                .containsExactly(0L, 0L, 0L, 30_000_000L, 50_000_000L);
        assertThat(script.consume(T0 + 59_999_999, 1, key)).as("one microsecond before that retry-after")
                .containsExactly(0L, 0L, 0L, 1L, 20_000_001L);
        assertThat(redis.client().zcard(key)).as("denials write nothing").isEqualTo(3);

        assertThat(script.consume(T0 + 60_000_000, 1, key)).as("exactly at it: T0's permit is out")
                .containsExactly(1L, 1L, 0L, 0L, 60_000_000L);
        assertThat(redis.client().zrange(key, 0, -1)).as("and trimmed from the log")
                .containsExactly((T0 + 10_000_000) + "-1", (T0 + 20_000_000) + "-1", (T0 + 60_000_000) + "-1");

        assertThat(script.peek(T0 + 65_000_000, 2, key))
                .as("two permits wait for the second oldest, T0 + 20 s, to leave at T0 + 80 s")
                .containsExactly(0L, 0L, 0L, 15_000_000L, 55_000_000L);
    }

    @Test
    void aPeekReportsTheStateBeforeTheRequestAndWritesNothing() {
        String key = redis.key("peek");
        FrozenClockScript script = script(3);
        assertThat(script.peek(T0, 1, key)).as("nothing logged").containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(redis.client().exists(key)).isFalse();

        script.consume(T0, 2, key);
        assertThat(script.peek(T0 + 5_000_000, 1, key)).as("one left; the log empties at T0 + 60 s")
                .containsExactly(1L, 1L, 1L, 0L, 55_000_000L);
        assertThat(script.peek(T0 + 60_000_000, 3, key)).as("the window has passed both permits")
                .containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(redis.client().zcard(key)).isEqualTo(2);
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String wide = redis.key("rules-wide");
        String narrow = redis.key("rules-narrow");
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.SLIDING_LOG, 3, WINDOW).name("wide").build(),
                Rule.builder(Algorithm.SLIDING_LOG, 2, Duration.ofSeconds(10)).name("narrow").build());

        assertThat(script.consume(T0, 1, wide, narrow))
                .containsExactly(1L, 1L, 2L, 0L, 60_000_000L, 1L, 1L, 0L, 10_000_000L);
        assertThat(script.consume(T0 + 1_000_000, 1, wide, narrow))
                .containsExactly(1L, 1L, 1L, 0L, 60_000_000L, 1L, 0L, 0L, 10_000_000L);

        // The wide rule would admit, but is not committed: it reports its remaining before the
        // request and, as sliding-log reports a reset only for peeks and its own denials, none.
        assertThat(script.consume(T0 + 2_000_000, 1, wide, narrow)).as("the narrow rule denies for both")
                .containsExactly(0L, 1L, 1L, 0L, 0L, 0L, 0L, 8_000_000L, 9_000_000L);
        assertThat(script.consume(T0 + 9_999_999, 1, wide, narrow))
                .containsExactly(0L, 1L, 1L, 0L, 0L, 0L, 0L, 1L, 1_000_001L);
        assertThat(redis.client().zcard(wide)).as("nothing taken from the rule that had room").isEqualTo(2);
        assertThat(redis.client().zcard(narrow)).isEqualTo(2);

        assertThat(script.consume(T0 + 10_000_000, 1, wide, narrow)).as("at the narrow rule's retry-after both take")
                .containsExactly(1L, 1L, 0L, 0L, 60_000_000L, 1L, 0L, 0L, 10_000_000L);
        assertThat(redis.client().zcard(wide)).isEqualTo(3);
        assertThat(redis.client().zrange(narrow, 0, -1))
                .containsExactly((T0 + 1_000_000) + "-1", (T0 + 10_000_000) + "-1");
    }

    private static FrozenClockScript script(long limit) {
        return new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, limit, WINDOW));
    }

    /** Runs the production script with its clock frozen at the given second and microsecond. */
    @Test
    void aCostOfThousandsOfPermitsIsCountedExactly() {
        // 5000 permits once failed: unpack() of 10,000 values overflows Lua's C stack, the script
        // errored, and onRedisFailure=allow admitted every request uncounted.
        String key = redis.key("large-cost");
        assertThat(admitAt(SECOND, 0, key, 5_000, 10_000).subList(0, 3)).as("allowed, remaining after")
                .containsExactly(1L, 1L, 5_000L);
        assertThat(admitAt(SECOND, 1, key, 5_000, 10_000).subList(0, 3)).containsExactly(1L, 1L, 0L);
        List<Long> third = admitAt(SECOND, 2, key, 5_000, 10_000);
        assertThat(third.subList(0, 3)).as("the limit holds").containsExactly(0L, 0L, 0L);
        assertThat(third.get(3)).as("retry when the first 5000 leave the window").isEqualTo(60_000_000L - 2);
        assertThat(redis.client().zcard(key)).isEqualTo(10_000);
    }

    private static List<Long> admitAt(long second, long micros, String key, long permits, long limit) {
        return script(limit).consume(second * 1_000_000 + micros, permits, key);
    }
}
