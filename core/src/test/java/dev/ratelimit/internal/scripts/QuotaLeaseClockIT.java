package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Quota leases in the scripts, at exact instants: an admission asked with {@code L<permits>:<us>}
 * also takes at most a quarter of what is left for the caller's node, counted in Redis at once.
 * Replies are {all_allowed, allowed, remaining, retry_after_us, reset_after_us, receipt}, then with a
 * lease {grant, lease_us, lease_receipt}.
 */
class QuotaLeaseClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long SECOND = 1_000_000L;
    private static final long MINUTE = 60 * SECOND;

    private static List<String> leasing(FrozenClockScript script, long ask, long lifetime, long permits, long now) {
        List<String> args = script.args(true, permits, now);
        args.set(0, "L" + ask + ":" + lifetime);
        return args;
    }

    @Test
    void fixedWindowLeasesAQuarterOfWhatIsLeftCountedInTheWindowAtOnce() {
        String key = redis.key("fw");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1)));

        List<Long> reply = script.run(leasing(script, 1000, SECOND, 1, T0), key);

        assertThat(reply).hasSize(11);
        assertThat(reply.subList(0, 3)).as("admitted, 99 left after the request itself").containsExactly(1L, 1L, 99L);
        assertThat(reply.get(7)).as("a quarter of the 99 left").isEqualTo(24L);
        assertThat(reply.get(8)).as("the lease's life").isEqualTo(SECOND);
        // The lease reads the key's PTTL after the admission set it: a Redis descheduled between the two
        // (a loaded machine) reads a few milliseconds less, and refund.lua matches a receipt within 10 ms.
        assertThat(reply.get(9)).as("its receipt is the window's end, as the admission's (within refund.lua's 10 ms)")
                .isBetween(reply.get(5) - 10_000, reply.get(5) + 1000);
        assertThat(reply.get(6)).as("its life: the instant its permits were taken (a reset's guard compares it)")
                .isEqualTo(T0);
        assertThat(redis.client().get(key)).isEqualTo("25");
        assertThat(script.peek(T0, 1, key).subList(0, 3)).containsExactly(1L, 1L, 75L);
    }

    @Test
    void fixedWindowLendsNothingPastTheEndOfItsWindow() {
        String key = redis.key("fw-end");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1)));
        script.consume(T0, 1, key);
        redis.client().pexpire(key, 5_000);

        List<Long> reply = script.run(leasing(script, 10, 10 * SECOND, 1, T0), key);

        assertThat(reply.get(7)).isEqualTo(10L);
        assertThat(reply.get(8)).as("asked for 10 s: at most the key's PTTL").isLessThanOrEqualTo(5 * SECOND)
                .isGreaterThan(4 * SECOND);
    }

    @Test
    void nearTheLimitNothingIsLentAndTheAnswerIsAnAdmissionsAlone() {
        String key = redis.key("fw-near");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
        for (int i = 0; i < 6; i++) {
            script.consume(T0, 1, key);
        }

        List<Long> reply = script.run(leasing(script, 100, SECOND, 1, T0), key);

        assertThat(reply).as("3 left: a quarter of it is no permit").hasSize(7);
        assertThat(reply.get(2)).isEqualTo(3L);
        assertThat(redis.client().get(key)).isEqualTo("7");
    }

    @Test
    void aDenialLendsNothingAndWritesNothing() {
        String key = redis.key("fw-denied");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)));
        script.consume(T0, 2, key);

        List<Long> reply = script.run(leasing(script, 100, SECOND, 1, T0), key);

        assertThat(reply).hasSize(5);
        assertThat(reply.get(0)).isZero();
        assertThat(redis.client().get(key)).isEqualTo("2");
    }

    @Test
    void fixedWindowTakesBackTheUnusedPartOfALease() {
        String key = redis.key("fw-back");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1)));
        List<Long> reply = script.run(leasing(script, 1000, SECOND, 1, T0), key);

        assertThat(script.refund(T0, 10, asAdmission(reply.get(9)), key)).containsExactly(1L);

        assertThat(redis.client().get(key)).as("25 taken, 10 of the lease's 24 back").isEqualTo("15");
    }

    /**
     * The lease's permits are one entry stamped at the lease's end, not now: each permit the node
     * admits from it leaves the log no earlier than it would have, decided one by one.
     */
    @Test
    void slidingLogStampsTheLeaseAtItsEndSoItsPermitsLeaveNoEarlier() {
        String key = redis.key("log");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 100, Duration.ofMinutes(1)));

        List<Long> reply = script.run(leasing(script, 8, SECOND / 2, 1, T0), key);

        assertThat(reply.subList(7, 10)).containsExactly(8L, SECOND / 2, T0 + SECOND / 2);
        assertThat(log(key)).containsExactly("1@" + T0, "9@" + (T0 + SECOND / 2));
        assertThat(script.peek(T0 + MINUTE, 1, key).get(2)).as("the request has left, the lease not yet").isEqualTo(92L);
        assertThat(script.peek(T0 + MINUTE + SECOND / 2, 1, key).get(2)).isEqualTo(100L);
    }

    @Test
    void slidingLogTakesBackPartOfALeaseAndKeepsTheRest() {
        String key = redis.key("log-back");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.SLIDING_LOG, 100, Duration.ofMinutes(1)));
        List<Long> reply = script.run(leasing(script, 8, SECOND / 2, 1, T0), key);
        script.admit(T0 + SECOND, 2, key);

        assertThat(script.refund(T0 + SECOND, 5, asAdmission(reply.get(9)), key)).containsExactly(1L);

        assertThat(log(key)).as("the lease keeps its 3 used permits; the later total is lowered by 5")
                .containsExactly("1@" + T0, "4@" + (T0 + SECOND / 2), "6@" + (T0 + SECOND));
        assertThat(script.refund(T0 + SECOND, 4, asAdmission(reply.get(9)), key)).as("more than it holds")
                .containsExactly(0L);
        assertThat(script.refund(T0 + SECOND, 3, asAdmission(reply.get(9)), key)).containsExactly(1L);
        assertThat(log(key)).containsExactly("1@" + T0, "3@" + (T0 + SECOND));
    }

    /**
     * GCRA takes a lease as if each permit were taken at the lease's end, TAT' = max(TAT, now + life)
     * + n*T; here the TAT is already past that, so it simply moves on by the lease.
     */
    @Test
    void gcraMovesTheTatOnByTheLease() {
        String key = redis.key("gcra");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(10)));

        List<Long> reply = script.run(leasing(script, 100, SECOND / 2, 1, T0), key);

        assertThat(reply.subList(7, 10)).as("a quarter of the 9 left, for half a second; the receipt is the TAT written")
                .containsExactly(2L, SECOND / 2, T0 + 3 * SECOND);
        assertThat(redis.client().get(key)).as("the TAT, then the life that began at T0").isEqualTo("-" + (T0 + 3 * SECOND) + " " + T0);
        assertThat(script.giveBackLease(T0, 1, reply, key)).containsExactly(1L);
        assertThat(redis.client().get(key)).as("one unused permit back").isEqualTo("-" + (T0 + 2 * SECOND) + " " + T0);
    }

    /** A long lease that would push the TAT past the burst lends only what keeps it within. */
    @Test
    void gcraLendsOnlyWhatKeepsTheTatWithinTheBurst() {
        String key = redis.key("gcra-long");
        FrozenClockScript script = new FrozenClockScript(redis.client(), Rule.of(Algorithm.GCRA, 100, Duration.ofSeconds(100)));

        List<Long> reply = script.run(leasing(script, 50, 90 * SECOND, 1, T0), key);

        assertThat(reply.get(7)).as("24 asked by the quarter rule; 10 fit from now + 90 s").isEqualTo(10L);
        assertThat(redis.client().get(key)).isEqualTo("-" + (T0 + 100 * SECOND) + " " + T0);
        assertThat(script.peek(T0, 1, key).get(0)).as("the burst is used up until time passes").isZero();
    }

    /**
     * token-bucket keeps at most what it would hold at the lease's end had it been full, with no
     * refill credited before then, less the lease: a refill-short bucket loses nothing.
     */
    @Test
    void tokenBucketCreditsNoRefillBeforeTheLeasesEnd() {
        Rule rule = Rule.of(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(10));
        FrozenClockScript script = new FrozenClockScript(redis.client(), rule);
        String shortLease = redis.key("tb-short");
        String longLease = redis.key("tb-long");

        List<Long> reply = script.run(leasing(script, 100, SECOND / 2, 1, T0), shortLease);
        assertThat(reply.get(7)).isEqualTo(2L);
        assertThat(redis.client().get(shortLease)).as("9 left after the request, 2 lent: 7 (in units of 1/10^6)")
                .isEqualTo("t7000000 " + T0 + " " + T0);

        reply = script.run(leasing(script, 100, 2 * SECOND, 1, T0), longLease);
        assertThat(reply.get(7)).isEqualTo(2L);
        assertThat(redis.client().get(longLease)).as("full two seconds from now: at most 8, then 2 lent")
                .isEqualTo("t6000000 " + T0 + " " + T0);
        assertThat(script.peek(T0 + 4 * SECOND, 1, longLease).get(2)).as("refilled from there").isEqualTo(10L);
    }

    /**
     * A gcra lease's rest goes back into the state the lease left (its receipt is the TAT it wrote),
     * never below what came after it: once the TAT had passed and a new life began, the rest stays
     * counted, for moving the new TAT back would admit more than one place would have.
     */
    @Test
    void gcraGivesALeasesRestBackOnlyIntoTheStateTheLeaseLeft() {
        Rule rule = Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(10));
        FrozenClockScript script = new FrozenClockScript(redis.client(), rule);
        String kept = redis.key("gcra-kept");
        String reborn = redis.key("gcra-reborn");

        List<Long> lease = script.run(leasing(script, 100, SECOND / 2, 1, T0), kept);
        assertThat(lease.get(9)).as("the receipt is the TAT the lease wrote").isEqualTo(T0 + 3 * SECOND);
        assertThat(script.giveBackLease(T0 + SECOND / 2, 2, lease, kept)).containsExactly(1L);
        assertThat(redis.client().get(kept)).isEqualTo("-" + (T0 + SECOND) + " " + T0);

        lease = script.run(leasing(script, 100, SECOND / 2, 1, T0), reborn);
        script.consume(T0 + 10 * SECOND, 1, reborn);
        String newLife = "-" + (T0 + 11 * SECOND) + " " + (T0 + 10 * SECOND);
        assertThat(redis.client().get(reborn)).as("the TAT had passed: a new life").isEqualTo(newLife);
        assertThat(script.giveBackLease(T0 + 10 * SECOND, 2, lease, reborn)).containsExactly(0L);
        assertThat(redis.client().get(reborn)).isEqualTo(newLife);
    }

    /**
     * A reset leaves its guard beside the client's key, the reset's instant: no rest of a lease lent
     * at or before it goes back into the client's fresh state, whatever the algorithm, even where the
     * fresh state looks like the old one (a new fixed window ending within a millisecond of the old,
     * a gcra TAT or a bucket counted at the same instant). A lease lent after the reset gives back.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void noRestGoesBackIntoTheStateOfAClientResetSinceItsLease(Algorithm algorithm) {
        Rule rule = Rule.of(algorithm, 100, Duration.ofMinutes(1));
        FrozenClockScript script = new FrozenClockScript(redis.client(), rule);
        String key = redis.key("reset-" + algorithm.configName());
        List<Long> lease = script.run(leasing(script, 8, SECOND / 2, 1, T0), key);
        assertThat(lease).as("a lease was taken, lent at T0").hasSize(11);
        assertThat(lease.get(10)).isEqualTo(T0);

        redis.client().del(key);
        redis.client().psetex(RedisKeys.resetGuard(key), 10_000, Long.toString(T0));
        List<Long> fresh = script.run(leasing(script, 8, SECOND / 2, 1, T0 + 1), key);
        String state = stateOf(key);

        assertThat(script.giveBackLease(T0 + 1, lease.get(7), lease, key)).containsExactly(0L);
        assertThat(stateOf(key)).isEqualTo(state);
        assertThat(script.giveBackLease(T0 + 1, fresh.get(7), fresh, key))
                .as("the lease lent after the reset gives back").containsExactly(1L);
    }

    private String stateOf(String key) {
        return "zset".equals(redis.client().type(key)) ? log(key).toString() : redis.client().get(key);
    }

    /** An admission's reply as {@link FrozenClockScript#refund} reads it, with this receipt (of a state that keeps no life). */
    private static List<Long> asAdmission(long receipt) {
        return List.of(1L, 1L, 0L, 0L, 0L, receipt, 0L);
    }

    private List<String> log(String key) {
        List<String> entries = new ArrayList<>();
        redis.client().zrangeWithScores(key, 0, -1)
                .forEach(t -> entries.add(t.getElement() + "@" + String.format("%.0f", t.getScore())));
        return entries;
    }
}
