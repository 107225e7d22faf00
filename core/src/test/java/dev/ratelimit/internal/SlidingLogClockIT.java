package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sliding-log script with Redis' clock frozen or stepped back: the cases real traffic reaches
 * only after a failover to a replica whose clock is behind. The script's one TIME call is replaced
 * by a fixed time, so each case is exact; everything else is the production script.
 */
class SlidingLogClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String CLOCK_CALL = "local t = redis.call('TIME')";
    private static final long SECOND = 1_700_000_000L;
    private static final String WINDOW_MICROS = "60000000";

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

    /** Runs the production script with its clock frozen at the given second and microsecond. */
    private static List<Long> admitAt(long second, long micros, String key, long permits, long limit) {
        String source = LuaEvaluator.script(Algorithm.SLIDING_LOG).source();
        assertThat(source).contains(CLOCK_CALL);
        String frozen = source.replace(CLOCK_CALL, "local t = {'" + second + "', '" + micros + "'}");
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) redis.client().eval(frozen, List.of(key),
                List.of("1", Long.toString(permits), Long.toString(limit), WINDOW_MICROS));
        return reply;
    }
}
