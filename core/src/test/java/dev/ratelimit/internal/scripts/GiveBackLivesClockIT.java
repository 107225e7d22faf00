package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Give-backs that meet each other in one client's gcra or token-bucket state (issue 48, items 1, 2
 * and 6), at exact instants through the scripts' clock argument on a real Redis. Each scenario runs
 * on two keys: the client's, where leases, refunds and cancelled waits happen, and its twin, where
 * only what was really admitted is admitted, at the same instants (one place, no leases). After the
 * give-backs the client's key must admit no more than the twin: a give-back goes back only into the
 * life of the state it was taken from, and only as far as it can be placed exactly.
 */
class GiveBackLivesClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long MS = 1_000L;

    /** 16 per second, a burst of 16: gcra's interval is 62,500 us. */
    private static FrozenClockScript sixteenPerSecond(Algorithm algorithm) {
        return new FrozenClockScript(redis.client(), Rule.of(algorithm, 16, Duration.ofSeconds(1)));
    }

    /** How many single permits are admitted at {@code now}, one after the other, until the first denial. */
    private static int admittedAt(FrozenClockScript script, long now, String key) {
        int admitted = 0;
        while (admitted < 100 && script.consume(now, 1, key).get(0) == 1) {
            admitted++;
        }
        return admitted;
    }

    private static void admit(FrozenClockScript script, long now, int times, String... keys) {
        for (String key : keys) {
            for (int i = 0; i < times; i++) {
                assertThat(script.consume(now, 1, key).get(0)).as("admission %d of %d at +%dus on %s", i + 1, times,
                        now - T0, key).isEqualTo(1L);
            }
        }
    }

    /**
     * Item 1: node B's lease (3) and then node A's (2) are stacked on one client; B's rest goes back
     * first, moving the state below A's lease; three admissions follow; then A's rest. One place, which
     * never saw the leases' unused permits, admits 13 at 381 ms; the rule "never closer to now than
     * what was stacked after the lease", reading one scalar, let the client in 14 times.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void twoRestsOfOneClientGiveBackNoMoreThanOnePlaceHolds(Algorithm algorithm) {
        FrozenClockScript script = sixteenPerSecond(algorithm);
        String key = redis.key("two-rests-" + algorithm.configName());
        String twin = redis.key("two-rests-twin-" + algorithm.configName());
        admit(script, T0, 3, key, twin);
        List<Long> leaseB = script.lease(T0, 3, 100 * MS, 1, key);
        List<Long> leaseA = script.lease(T0, 2, 100 * MS, 1, key);
        admit(script, T0, 2, twin);
        assertThat(leaseB.get(FrozenClockScript.leaseAt())).as("B's lease").isEqualTo(3L);
        assertThat(leaseA.get(FrozenClockScript.leaseAt())).as("A's lease").isEqualTo(2L);

        script.giveBackLease(T0 + 100 * MS, 3, leaseB, key);
        admit(script, T0 + 375 * MS, 3, key, twin);
        script.giveBackLease(T0 + 381 * MS, 2, leaseA, key);

        int onePlace = admittedAt(script, T0 + 381 * MS, twin);
        if (algorithm == Algorithm.GCRA) {
            assertThat(onePlace).as("one place, gcra").isEqualTo(13);
        }
        assertThat(admittedAt(script, T0 + 381 * MS, key)).as("admitted after both rests").isLessThanOrEqualTo(onePlace);
    }

    /**
     * Items 1 (its variant) and 2: an admission's refund ({@code countStatus}) and a lease's rest taken
     * from one life of the state land in the next, after Redis lost the data (a restart without
     * persistence: no reset guard is left) and a burst began a new life. That life never lent them.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void nothingTakenFromAnEarlierLifeGoesBackIntoTheNext(Algorithm algorithm) {
        FrozenClockScript script = sixteenPerSecond(algorithm);
        String key = redis.key("lives-" + algorithm.configName());
        List<Long> admission = script.admit(T0, 1, key);
        List<Long> lease = script.lease(T0, 3, 100 * MS, 1, key);
        assertThat(lease.get(FrozenClockScript.leaseAt())).isEqualTo(3L);

        redis.client().del(key);
        admit(script, T0 + MS, 10, key);
        String newLife = redis.client().get(key);

        assertThat(script.refund(T0 + MS, 1, admission, key)).as("the refund of an earlier life").containsExactly(0L);
        assertThat(script.giveBackLease(T0 + MS, 3, lease, key)).as("the rest of an earlier life").containsExactly(0L);
        assertThat(redis.client().get(key)).isEqualTo(newLife);
    }

    /**
     * Item 2 for the other algorithms that refund: a {@code countStatus} refund of an admission made
     * before a reset or a restart that lost the data lands not in the state begun after it, 10 ms
     * later, in the same aligned window (sliding-window). fixed-window: the next test.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_WINDOW", "LEAKY_BUCKET", "SLIDING_LOG"})
    void aRefundFromBeforeTheKeyWasLostGivesNothingToItsNextLife(Algorithm algorithm) {
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(algorithm, 10, Duration.ofMinutes(1)));
        String key = redis.key("lost-" + algorithm.configName());
        List<Long> before = script.admit(T0, 2, key);

        redis.client().del(key);
        admit(script, T0 + 10 * MS, 3, key);
        String after = redis.client().type(key).equals("zset") ? redis.client().zrange(key, 0, -1).toString()
                : redis.client().get(key);

        assertThat(script.refund(T0 + 10 * MS, 2, before, key)).containsExactly(0L);
        assertThat(redis.client().type(key).equals("zset") ? redis.client().zrange(key, 0, -1).toString()
                : redis.client().get(key)).isEqualTo(after);
    }

    /**
     * fixed-window's window end is its life, to the millisecond on Redis' own clock (as production
     * runs, without the test clock): a window begun after a restart that lost the key ends later (here
     * 15 ms, past refund.lua's 10 ms), and a refund from before finds nothing of its own there.
     */
    @org.junit.jupiter.api.Test
    void aFixedWindowsEndIsItsLifeToTheMillisecond() {
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
        String key = redis.key("fixed-life");
        List<Long> before = script.admitOnRedisClock(2, key);
        List<Long> same = script.admitOnRedisClock(1, key);
        assertThat(script.refundOnRedisClock(1, same, key)).as("its own window").containsExactly(1L);

        redis.client().del(key);
        script.admitOnRedisClock(3, key);
        // The new window began 15 ms after the old one: its end is 15 ms later.
        redis.client().pexpire(key, redis.client().pttl(key) + 15);

        assertThat(script.refundOnRedisClock(2, before, key)).containsExactly(0L);
        assertThat(redis.client().get(key)).isEqualTo("3");
    }

    /**
     * Stacked refunds of leaky-bucket, as gcra's rests: the first admission's refund, placed below
     * the second, may not let the client in more than one place would.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"LEAKY_BUCKET", "GCRA", "TOKEN_BUCKET"})
    void aRefundBelowLaterAdmissionsGivesBackNoMoreThanOnePlaceHolds(Algorithm algorithm) {
        FrozenClockScript script = sixteenPerSecond(algorithm);
        String key = redis.key("stacked-" + algorithm.configName());
        String twin = redis.key("stacked-twin-" + algorithm.configName());
        List<Long> early = script.admit(T0, 8, key);
        admit(script, T0 + 300 * MS, 8, key, twin);
        script.refund(T0 + 300 * MS, 8, early, key);

        assertThat(admittedAt(script, T0 + 300 * MS, key)).isLessThanOrEqualTo(admittedAt(script, T0 + 300 * MS, twin));
    }

    /**
     * Item 2 through expiry: refunds lower the state so that its key expires before a lease's
     * stamp (the DEL stands for that expiry: a frozen clock does not move Redis' own TTLs); a burst
     * starts a new life soon after, and the lease's rest, sent late, finds a state that looks as if
     * it were stacked on the lease.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void aRestOutlivingItsStateGivesNothingToTheNextLife(Algorithm algorithm) {
        FrozenClockScript script = sixteenPerSecond(algorithm);
        String key = redis.key("expired-" + algorithm.configName());
        String twin = redis.key("expired-twin-" + algorithm.configName());
        List<Long> first = script.admit(T0, 1, key);
        List<Long> second = script.admit(T0, 1, key);
        List<Long> third = script.admit(T0, 1, key);
        List<Long> lease = script.lease(T0, 3, 100 * MS, 1, key);
        admit(script, T0, 1, twin);
        script.refund(T0, 1, third, key);
        script.refund(T0, 1, second, key);
        script.refund(T0, 1, first, key);

        // Past anything the state still holds: the lease's own admission and its 3 permits end by 250 ms.
        long later = T0 + 300 * MS;
        redis.client().del(key);
        admit(script, later, 10, key, twin);
        script.giveBackLease(later, 3, lease, key);

        assertThat(admittedAt(script, later, key)).isLessThanOrEqualTo(admittedAt(script, later, twin));
    }

    /**
     * A state as main wrote it before states kept their life ({@code -<tat>}, {@code t<tokens> <at>},
     * which a rolling upgrade meets) decides as ever; a give-back into it is dropped, since nothing
     * says which life it came from; the next admission gives it a life of its own.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void aStateWrittenBeforeLivesDecidesAsEverAndTakesNothingBack(Algorithm algorithm) {
        FrozenClockScript script = sixteenPerSecond(algorithm);
        String key = redis.key("old-" + algorithm.configName());
        String twin = redis.key("old-twin-" + algorithm.configName());
        admit(script, T0, 6, twin);
        List<Long> admission = script.admit(T0, 1, key);
        String old = FrozenClockScript.withoutLife(redis.client().get(twin));
        redis.client().psetex(key, 10_000, old);

        assertThat(script.refund(T0, 1, admission, key)).as("nothing goes back into a state of no known life")
                .containsExactly(0L);
        assertThat(redis.client().get(key)).isEqualTo(old);
        assertThat(script.peek(T0, 1, key)).as("it decides as the state it is").isEqualTo(script.peek(T0, 1, twin));
        List<Long> next = script.admit(T0, 1, key);
        assertThat(redis.client().get(key)).as("the next write gives it a life").isEqualTo(old.startsWith("-")
                ? "-" + (Long.parseLong(old.substring(1)) + 62_500) + " " + T0
                : FrozenClockScript.withoutLife(redis.client().get(key)) + " " + T0);
        assertThat(script.refund(T0, 1, next, key)).as("what it took since goes back").containsExactly(1L);
    }

    /**
     * Item 6: with a burst of one, three requests wait in turn; the first is cancelled (the container
     * ended it) and its permits go back. The next request must still wait behind the last one queued,
     * never start with it: two at one instant would break the burst.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void aCancelledWaiterLetsNoneStartWithThoseQueuedBehindIt(Algorithm algorithm) {
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(algorithm, 1, Duration.ofSeconds(1)));
        String key = redis.key("cancelled-" + algorithm.configName());
        long maxDelay = 10_000 * MS;
        admit(script, T0, 1, key);
        List<Long> first = script.delaying(T0, 1, maxDelay, key);
        List<Long> second = script.delaying(T0, 1, maxDelay, key);
        assertThat(first.get(0)).as("delayed").isEqualTo(4L);
        assertThat(second.get(3)).as("the second waits behind the first").isEqualTo(2_000 * MS);

        script.refund(T0 + MS, 1, first, key);
        List<Long> next = script.delaying(T0 + MS, 1, maxDelay, key);

        assertThat(next.get(0)).isEqualTo(4L);
        assertThat(T0 + MS + next.get(3)).as("the next starts a whole interval after the second, not with it")
                .isGreaterThanOrEqualTo(T0 + second.get(3) + 1_000 * MS);
    }
}
