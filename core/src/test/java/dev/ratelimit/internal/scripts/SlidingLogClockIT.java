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
import redis.clients.jedis.resps.Tuple;

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
        long now = SECOND * 1_000_000 + 5;
        assertThat(log(key)).as("running totals; the second request is stamped after the newest entry")
                .containsExactly("1@" + now, "2@" + (now + 1));
        assertThat(second.get(4)).as("its entry leaves a microsecond after the window, and its reset says so")
                .isEqualTo(60_000_001L);
    }

    @Test
    void aRequestOfSeveralPermitsInTheSameMicrosecondKeepsEveryPermit() {
        String key = redis.key("several-same-microsecond");
        admitAt(SECOND, 7, key, 2, 10);
        List<Long> reply = admitAt(SECOND, 7, key, 3, 10);

        assertThat(reply.subList(0, 3)).containsExactly(1L, 1L, 5L);
        long now = SECOND * 1_000_000 + 7;
        assertThat(log(key)).as("one entry per request: 2 + 3 permits").containsExactly("2@" + now, "5@" + (now + 1));
        List<Long> denied = admitAt(SECOND, 7, key, 6, 10);
        assertThat(denied.get(0)).as("only 5 are left").isZero();
        assertThat(denied.get(2)).isEqualTo(5L);
    }

    @Test
    void aClockThatSteppedBackNeitherLosesPermitsNorTheLimit() {
        String key = redis.key("stepped-back");
        long later = SECOND * 1_000_000;
        admitAt(SECOND, 0, key, 1, 3);
        admitAt(SECOND - 1, 0, key, 1, 3);
        assertThat(redis.client().pttl(key)).as("one window after the newest stamp, a second ahead of this clock")
                .isBetween(60_000L, 61_001L);

        List<Long> third = admitAt(SECOND - 1, 0, key, 1, 3);
        assertThat(third.subList(0, 3)).containsExactly(1L, 1L, 0L);
        assertThat(log(key)).as("each admission is stamped after the newest entry")
                .containsExactly("1@" + later, "2@" + (later + 1), "3@" + (later + 2));
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
        assertThat(log(key)).as("the log keeps T0's entry as the anchor the window's count is measured from")
                .containsExactly("1@" + T0, "2@" + (T0 + 10_000_000), "3@" + (T0 + 20_000_000), "4@" + (T0 + 60_000_000));

        assertThat(script.peek(T0 + 65_000_000, 2, key))
                .as("two permits wait for the second oldest, T0 + 20 s, to leave at T0 + 80 s")
                .containsExactly(0L, 0L, 0L, 15_000_000L, 55_000_000L);

        assertThat(script.consume(T0 + 70_000_000, 1, key)).containsExactly(1L, 1L, 0L, 0L, 60_000_000L);
        assertThat(log(key)).as("entries older than the anchor, now T0 + 10 s, are trimmed")
                .containsExactly("2@" + (T0 + 10_000_000), "3@" + (T0 + 20_000_000), "4@" + (T0 + 60_000_000),
                        "5@" + (T0 + 70_000_000));
    }

    /**
     * Admissions of one microsecond (a coalesced batch reads TIME once) are stamped a microsecond
     * apart, so the permits a large request waits for may leave a few microseconds after
     * now + window. Whatever the cost and the limit, a request back at now + retry-after is admitted
     * and one a microsecond earlier denied, and the full limit is free at now + reset-after, not
     * before: an answer may point a few microseconds past the window, never short of the truth.
     */
    @Test
    void retryAfterAndResetAreExactAfterAdmissionsInOneMicrosecondForEveryCost() {
        long[] limits = {3, 4, 7, 10};
        long[] askedAfter = {0, 30_000_000, 59_999_999};
        for (long limit : limits) {
            for (long asked : askedAfter) {
                String key = redis.key("one-microsecond-" + limit + "-" + asked);
                FrozenClockScript script = script(limit);
                long burst = T0 + 5;
                long remaining = limit;
                List<Long> last = null;
                for (long cost = 1; remaining > 0; cost = cost % 3 + 1) {
                    last = script.consume(burst, Math.min(cost, remaining), key);
                    assertThat(last.get(1)).as("limit %d: admitted in the burst", limit).isEqualTo(1L);
                    remaining = last.get(2);
                }
                long now = burst + asked;
                long reset = last.get(4);
                String full = "limit " + limit + ", asked " + asked + " us after the burst";
                assertThat(script.peek(burst + reset - 1, limit, key).get(1))
                        .as("%s: the whole limit a microsecond before the last admission's reset %d", full, reset).isZero();
                assertThat(script.peek(burst + reset, limit, key).get(1))
                        .as("%s: the whole limit at the last admission's reset %d", full, reset).isEqualTo(1L);
                for (long cost = 1; cost <= limit; cost++) {
                    List<Long> denied = script.peek(now, cost, key);
                    String at = full + ", cost " + cost;
                    assertThat(denied.get(1)).as("%s: denied", at).isZero();
                    long retry = denied.get(3);
                    assertThat(script.peek(now + retry - 1, cost, key).get(1)).as("%s: a microsecond before retry-after %d",
                            at, retry).isZero();
                    assertThat(script.peek(now + retry, cost, key).get(1)).as("%s: at retry-after %d", at, retry)
                            .isEqualTo(1L);
                    long resetNow = denied.get(4);
                    assertThat(script.peek(now + resetNow - 1, limit, key).get(1)).as("%s: the whole limit before reset %d",
                            at, resetNow).isZero();
                    assertThat(script.peek(now + resetNow, limit, key).get(1)).as("%s: the whole limit at reset %d",
                            at, resetNow).isEqualTo(1L);
                }
                long retryForAll = script.peek(now, limit, key).get(3);
                assertThat(script.consume(now + retryForAll, limit, key).get(1))
                        .as("%s: a client that waits its retry-after takes the whole limit", full).isEqualTo(1L);
            }
        }
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
        assertThat(log(key)).as("the peeks wrote nothing").containsExactly("2@" + T0);
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
        assertThat(log(narrow)).containsExactly("1@" + T0, "2@" + (T0 + 1_000_000), "3@" + (T0 + 10_000_000));
    }

    private static FrozenClockScript script(long limit) {
        return new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, limit, WINDOW));
    }

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
        assertThat(redis.client().zcard(key)).as("memory grows with requests, not with permits").isEqualTo(2);
    }

    @Test
    void retryAfterFindsTheRequestWhoseDepartureMakesRoomAmongMixedCosts() {
        String key = redis.key("mixed-costs");
        FrozenClockScript script = script(10);
        long[] costs = {1, 3, 2, 1, 3};
        for (int i = 0; i < costs.length; i++) {
            assertThat(script.consume(T0 + i * 1_000_000L, costs[i], key).get(0)).isEqualTo(1L);
        }
        long now = T0 + 30_000_000;
        // Totals 1, 4, 6, 7, 10: k permits must leave; the entry whose total reaches k leaves first.
        assertThat(script.peek(now, 1, key).get(3)).as("k = 1: the request of T0").isEqualTo(30_000_000L);
        assertThat(script.peek(now, 2, key).get(3)).as("k = 2: T0 + 1 s, its 3 permits").isEqualTo(31_000_000L);
        assertThat(script.peek(now, 4, key).get(3)).as("k = 4: still T0 + 1 s").isEqualTo(31_000_000L);
        assertThat(script.peek(now, 5, key).get(3)).as("k = 5: T0 + 2 s").isEqualTo(32_000_000L);
        assertThat(script.peek(now, 7, key).get(3)).as("k = 7: T0 + 3 s").isEqualTo(33_000_000L);
        assertThat(script.peek(now, 8, key).get(3)).as("k = 8: T0 + 4 s").isEqualTo(34_000_000L);
        assertThat(script.peek(now, 10, key).get(3)).as("k = 10: T0 + 4 s").isEqualTo(34_000_000L);

        assertThat(script.consume(T0 + 61_000_000, 4, key)).as("T0 and T0 + 1 s have left: 4 permits free, taken")
                .containsExactly(1L, 1L, 0L, 0L, 60_000_000L);
        assertThat(script.consume(T0 + 61_000_000, 1, key).get(0)).as("and no more").isZero();
    }

    @Test
    void aLogAtTheLargestLimitIsRebasedBeforeItsTotalsLosePrecision() {
        String key = redis.key("rebased");
        long limit = 1L << 50;
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.of(Algorithm.SLIDING_LOG, limit, Duration.ofSeconds(1)));
        for (int second = 0; second < 12; second++) {
            long now = T0 + second * 1_000_000L;
            assertThat(script.consume(now, limit, key).subList(0, 3)).as("second %d", second)
                    .containsExactly(1L, 1L, 0L);
            assertThat(script.consume(now + 999_999, 1, key).get(0)).as("full until the window has passed").isZero();
            for (String entry : log(key)) {
                long total = Long.parseLong(entry.substring(0, entry.indexOf('@')));
                assertThat(total).as("an exact double").isLessThanOrEqualTo((1L << 52) + limit);
            }
        }
        assertThat(redis.client().zcard(key)).as("the anchor at most, and the newest request").isLessThanOrEqualTo(2);
    }

    @Test
    void aLogOfAnotherFormatIsNoStateAndIsReplaced() {
        String key = redis.key("old-format");
        long now = T0 + 1_000_000;
        redis.client().zadd(key, now - 10, (now - 10) + "-1");
        redis.client().zadd(key, now - 5, (now - 5) + "-1");

        assertThat(script(2).peek(now, 2, key)).as("no state: the log starts afresh").containsExactly(1L, 1L, 2L, 0L, 0L);
        assertThat(script(2).consume(now, 2, key).get(0)).isEqualTo(1L);
        assertThat(log(key)).containsExactly("2@" + now);
    }

    /** The log as "total@stamp" entries, oldest first. */
    private static List<String> log(String key) {
        List<String> entries = new ArrayList<>();
        for (Tuple tuple : redis.client().zrangeWithScores(key, 0, -1)) {
            entries.add(tuple.getElement() + "@" + (long) tuple.getScore());
        }
        return entries;
    }

    /** Runs the production script with its clock frozen at the given second and microsecond. */
    private static List<Long> admitAt(long second, long micros, String key, long permits, long limit) {
        return script(limit).consume(second * 1_000_000 + micros, permits, key);
    }
}
