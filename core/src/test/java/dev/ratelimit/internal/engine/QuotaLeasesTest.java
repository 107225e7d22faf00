package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lease table on its own, on a clock the test moves: what is asked, admitted and given back. */
class QuotaLeasesTest {
    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 1000, Duration.ofMinutes(1));
    private static final List<String> KEYS = List.of("rl:p:{client}");

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final QuotaLeases leases = new QuotaLeases(RULE, nanos::get);
    private final List<Receipt> givenBack = new ArrayList<>();

    /** What Redis would hand back: the admission, and a lease of {@code permits} for the whole lifetime. */
    private void grant(String key, long remaining, long permits) {
        Decision admission = Decision.of(true, RULE, remaining, Duration.ZERO, Duration.ofSeconds(30));
        QuotaGrant grant = permits == 0 ? null : new QuotaGrant(leases.lifetimeMicros(),
                new Receipt(receipt -> givenBack.add(receipt), KEYS, new long[] {permits}, new long[] {77}));
        leases.granted(key, admission, grant, nanos.get(), leases.epoch());
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    /** A client seen three times within milliseconds: what a lease is lent to. */
    private void comesBackQuicklyTwice(String key) {
        for (int i = 0; i < 2; i++) {
            leases.ask(key);
            grant(key, 999, 0);
            advance(Duration.ofMillis(5));
        }
    }

    @Test
    void aLeaseLivesATenthOfTheWindowAndNeverMoreThanASecond() {
        assertThat(QuotaLeases.lifetime(Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(5))))
                .isEqualTo(Duration.ofMillis(500));
        assertThat(QuotaLeases.lifetime(RULE)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aNewClientAsksNothingThenTwiceWhatItUsedUpToTheCap() {
        assertThat(leases.ask("c")).as("first sight").isZero();
        grant("c", 999, 0);
        advance(Duration.ofMillis(5));
        assertThat(leases.ask("c")).as("back soon once: could be chance").isZero();
        grant("c", 999, 0);
        advance(Duration.ofMillis(5));
        assertThat(leases.ask("c")).as("back soon twice in a row").isEqualTo(1);
        grant("c", 998, 1);
        assertThat(leases.admit("c", 1)).isNotNull();
        advance(Duration.ofMillis(5));
        assertThat(leases.ask("c")).as("used all of 1").isEqualTo(2);
        grant("c", 996, 600);
        for (int i = 0; i < 600; i++) {
            assertThat(leases.admit("c", 1)).isNotNull();
        }
        advance(Duration.ofMillis(5));
        assertThat(leases.ask("c")).as("capped").isEqualTo(QuotaLease.MAX_ASK);
    }

    @Test
    void aClientExpectedFewerThanFourTimesInALeasesLifeIsLentNothing() {
        grant("c", 999, 0);
        advance(Duration.ofMillis(250));
        assertThat(leases.ask("c")).as("4 a lease's life, once").isZero();
        grant("c", 998, 0);
        advance(Duration.ofMillis(300));
        assertThat(leases.ask("c")).as("then 3.3 a lease's life").isZero();
        grant("c", 997, 0);
        advance(Duration.ofMillis(250));
        assertThat(leases.ask("c")).as("4 a lease's life, once again").isZero();
        grant("c", 996, 0);
        advance(Duration.ofMillis(250));
        assertThat(leases.ask("c")).as("4 a lease's life, twice in a row").isEqualTo(1);
        grant("c", 995, 1);
        advance(Duration.ofMillis(1200));
        assertThat(leases.ask("c")).as("back after more than a lease's life").isZero();
    }

    @Test
    void aBusyClientWhoseLeaseLastedItsWholeLifeGoesOnLeasing() {
        comesBackQuicklyTwice("c");
        leases.ask("c");
        grant("c", 900, 40);
        for (int i = 0; i < 30; i++) {
            leases.admit("c", 1);
            advance(Duration.ofMillis(34));
        }

        assertThat(leases.admit("c", 1)).as("ended after a second").isNull();
        assertThat(leases.ask("c")).as("30 used in 1.02 s: asks what it used, no pause to prove its pace again")
                .isEqualTo(30);
    }

    @Test
    void aClientNeverAsksMoreThanItsPacePredicts() {
        comesBackQuicklyTwice("c");
        assertThat(leases.ask("c")).isEqualTo(1);
        grant("c", 900, 16);
        for (int i = 0; i < 16; i++) {
            leases.admit("c", 1);
        }
        advance(Duration.ofMillis(500));

        assertThat(leases.ask("c")).as("17 in half a lease's life: 34 expected, not 32 doubled").isEqualTo(32);
        grant("c", 800, 32);
        for (int i = 0; i < 32; i++) {
            leases.admit("c", 1);
        }
        advance(Duration.ofMillis(990));
        assertThat(leases.ask("c")).as("33 in 0.99 s: 33 expected, not 64 doubled").isEqualTo(33);
        grant("c", 700, 10);
        for (int i = 0; i < 5; i++) {
            leases.admit("c", 1);
        }
        advance(Duration.ofMillis(100));
        assertThat(leases.ask("c")).as("used 5 of 10: asks what it used").isEqualTo(5);
    }

    @Test
    void admissionsFromALeaseCountDownWhatRedisSaidWasLeftAndStopWhenItIsUsedUp() {
        leases.ask("c");
        grant("c", 900, 3);

        List<Long> remaining = new ArrayList<>();
        Decision admitted;
        while ((admitted = leases.admit("c", 1)) != null) {
            assertThat(admitted.allowed()).isTrue();
            assertThat(admitted.degraded()).isFalse();
            remaining.add(admitted.remaining());
        }

        assertThat(remaining).containsExactly(899L, 898L, 897L);
        assertThat(leases.admit("other", 1)).as("another client holds nothing").isNull();
    }

    @Test
    void aLeaseEndsWithItsLifetimeAndWhatIsLeftWaitsToGoBack() {
        grant("c", 900, 10);
        leases.admit("c", 1);
        leases.admit("c", 1);

        advance(Duration.ofSeconds(1));

        assertThat(leases.admit("c", 1)).as("ended").isNull();
        assertThat(leases.ask("c")).as("3 admissions a lease's life: not worth one").isZero();
        List<Receipt> unused = leases.takeUnused(QuotaLeases.RETURNS_PER_CALL);
        assertThat(unused).hasSize(1);
        assertThat(unused.get(0).permits(0)).isEqualTo(8);
        assertThat(unused.get(0).stamp(0)).as("the lease's own stamp").isEqualTo(77);
        assertThat(leases.takeUnused(QuotaLeases.RETURNS_PER_CALL)).as("each part goes back once").isEmpty();
    }

    @Test
    void aLeaseWhoseClientNeverComesBackGoesBackWithTheNextRoundTripForAnyone() {
        grant("quiet", 900, 10);
        advance(Duration.ofMillis(1500));

        List<Receipt> unused = leases.takeUnused(QuotaLeases.RETURNS_PER_CALL);

        assertThat(unused).extracting(receipt -> receipt.permits(0)).containsExactly(10L);
        assertThat(leases.size()).as("the ended lease is dropped").isZero();
    }

    @Test
    void clientsOnlySeenAreForgottenWithinTwoLeaseLivesWhileALeaseHoldingPermitsGoesBackWithinATenth() {
        grant("seen", 900, 0);
        grant("holding", 900, 10);
        advance(Duration.ofMillis(500));
        leases.takeUnused(100);
        advance(Duration.ofMillis(600));

        assertThat(leases.takeUnused(100)).extracting(receipt -> receipt.permits(0)).containsExactly(10L);
        assertThat(leases.size()).as("the ended lease that held permits is dropped at once, the client only seen "
                + "with the next scan of the whole table").isEqualTo(1);
        advance(QuotaLeases.lifetime(RULE));
        leases.takeUnused(100);
        assertThat(leases.size()).as("within two lease lives every ended client is forgotten").isZero();
    }

    @Test
    void aClientBackAfterAPauseStartsAgainAsNew() {
        grant("c", 900, 4);
        advance(Duration.ofSeconds(3));

        assertThat(leases.ask("c")).isZero();
    }

    @Test
    void aRefundOfALeasedAdmissionGoesBackIntoTheLeaseWhileItLives() {
        grant("c", 900, 1);
        Decision admitted = leases.admit("c", 1);
        assertThat(leases.admit("c", 1)).as("used up").isNull();

        Receipt receipt = DecisionAccess.get().receipt(admitted);
        assertThat(receipt.keys()).isEqualTo(KEYS);
        assertThat(receipt.claim()).isTrue();
        assertThat(receipt.giveBack()).isTrue();

        assertThat(leases.admit("c", 1)).as("the permit is back in the lease").isNotNull();
    }

    @Test
    void aRefundAfterTheLeaseEndedGivesNothingBack() {
        grant("c", 900, 2);
        Decision admitted = leases.admit("c", 1);
        advance(Duration.ofSeconds(2));

        Receipt receipt = DecisionAccess.get().receipt(admitted);
        receipt.claim();

        assertThat(receipt.giveBack()).isFalse();
    }

    @Test
    void whenRulesChangeEveryLeaseEndsAndItsRestWaitsToGoBack() {
        grant("a", 900, 5);
        grant("b", 900, 3);
        leases.admit("a", 1);

        leases.settleAll();

        assertThat(leases.admit("a", 1)).isNull();
        assertThat(leases.takeUnused(100)).extracting(receipt -> receipt.permits(0)).containsExactlyInAnyOrder(4L, 3L);
    }

    @Test
    void aResetClientsLeaseIsDroppedWithoutGoingBack() {
        grant("c", 900, 5);

        leases.forget("c");

        assertThat(leases.admit("c", 1)).isNull();
        assertThat(leases.takeUnused(100)).isEmpty();
    }

    /**
     * Issue 37: a lease that ended before the reset left its rest waiting to go back; sent after the
     * reset, it would be given back into the client's fresh state, which then admits the leftover too.
     */
    @Test
    void aResetClientsRestWaitingToGoBackIsDroppedTooAndOtherClientsKeepTheirs() {
        grant("c", 900, 5);
        grant("other", 900, 3);
        advance(Duration.ofSeconds(2));
        leases.takeUnused(0);
        assertThat(leases.pending()).as("both ended, their rests wait").isEqualTo(2);

        leases.forget("c");

        assertThat(leases.pending()).isEqualTo(1);
        assertThat(leases.takeUnused(100)).extracting(receipt -> receipt.permits(0)).containsExactly(3L);
    }

    @Test
    void aResetOnAnotherNodeDropsEveryRestWaitingToGoBack() {
        grant("a", 900, 5);
        grant("b", 900, 3);
        leases.settleAll();
        grant("c", 900, 2);

        leases.dropAll();

        assertThat(leases.pending()).isZero();
        assertThat(leases.takeUnused(100)).isEmpty();
        assertThat(leases.admit("c", 1)).isNull();
    }

    /** Issue 37, item 7: under a live override a lease's admissions tell the limit in force, as Redis's do. */
    @Test
    void admissionsFromALeaseTellTheLimitInForceNotTheConfiguredOne() {
        Rule overridden = Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1));
        Decision admission = Decision.of(true, overridden, 60, Duration.ZERO, Duration.ofSeconds(30));
        QuotaGrant grant = new QuotaGrant(leases.lifetimeMicros(),
                new Receipt(receipt -> givenBack.add(receipt), KEYS, new long[] {10}, new long[] {77}));
        leases.granted("c", admission, grant, nanos.get(), leases.epoch());

        Decision fromLease = leases.admit("c", 1);

        assertThat(fromLease.limit()).isEqualTo(100);
        assertThat(fromLease.remaining()).isEqualTo(59);
        assertThat(fromLease.rule()).isEqualTo(overridden);
    }

    /**
     * Issue 37, item 3: a call that took a lease was in flight when the leases were ended (the rules
     * changed, a client was reset): nothing is admitted from what it brings, and its rest goes back.
     */
    @Test
    void aLeaseWhoseCallWasInFlightWhenLeasesEndedAdmitsNothing() {
        for (Runnable ending : List.<Runnable>of(leases::settleAll, leases::dropAll, () -> leases.forget("other"))) {
            long epoch = leases.epoch();
            ending.run();
            leases.granted("c", Decision.of(true, RULE, 900, Duration.ZERO, Duration.ofSeconds(30)), new QuotaGrant(
                    leases.lifetimeMicros(), new Receipt(r -> true, KEYS, new long[] {6}, new long[] {77})), nanos.get(), epoch);

            assertThat(leases.admit("c", 1)).isNull();
            assertThat(leases.takeUnused(100)).extracting(receipt -> receipt.permits(0)).containsExactly(6L);
        }
    }

    /**
     * Issue 37, item 6: requests of one client that miss its lease together ask once; the lease the
     * asking one brings stays, whichever call comes back first.
     */
    @Test
    void concurrentMissesOfOneClientAskOnceAndKeepTheLeaseThatCameBack() {
        comesBackQuicklyTwice("c");
        assertThat(leases.ask("c")).as("the first miss asks").isPositive();
        assertThat(leases.ask("c")).as("a second, while the first is on its way").isZero();

        grant("c", 900, 5);
        grant("c", 899, 0);

        assertThat(leases.admit("c", 1)).as("the call that asked nothing did not replace the lease").isNotNull();
        assertThat(leases.takeUnused(100)).isEmpty();
    }

    /** Issue 37, item 6: nothing is lent while a rest could find no room to wait, so none is ever dropped. */
    @Test
    void nothingIsLentWhileTheLeasesOutCouldOverflowTheRestsWaiting() {
        for (int i = 0; i < QuotaLeases.MAX_PENDING; i++) {
            grant("c" + i, 900, 1);
        }
        comesBackQuicklyTwice("asker");
        assertThat(leases.ask("asker")).isZero();

        advance(Duration.ofSeconds(1));
        assertThat(leases.takeUnused(Integer.MAX_VALUE)).as("every lease's rest went back").hasSize(QuotaLeases.MAX_PENDING);
        comesBackQuicklyTwice("asker2");
        assertThat(leases.ask("asker2")).isPositive();
    }

    /** A rest goes back within a bounded time of its lease's end, or stays counted: what lets a reset guard expire. */
    @Test
    void aRestNotSentWithinItsTimeStaysCounted() {
        grant("c", 900, 5);
        advance(QuotaLeases.lifetime(RULE));
        leases.takeUnused(0);
        assertThat(leases.pending()).isEqualTo(1);

        advance(QuotaLeases.GIVE_BACK_WITHIN.plusNanos(1));

        assertThat(leases.takeUnused(100)).isEmpty();
        assertThat(leases.pending()).isZero();
        assertThat(QuotaLeases.RESET_GUARD).isGreaterThan(QuotaLeases.MAX_LIFETIME.plus(QuotaLeases.GIVE_BACK_WITHIN));
    }

    /**
     * Issue 37, item 7: for gcra and token-bucket each admission from a lease says the reset Redis
     * would have said had it decided it: the state clears an interval later per permit.
     */
    @Test
    void gcraAdmissionsFromALeaseTellTheResetTheyMoveOn() {
        Rule gcra = Rule.of(Algorithm.GCRA, 60, Duration.ofMinutes(1));
        QuotaLeases gcraLeases = new QuotaLeases(gcra, nanos::get);
        gcraLeases.granted("c", Decision.of(true, gcra, 50, Duration.ZERO, Duration.ofSeconds(10)), new QuotaGrant(
                gcraLeases.lifetimeMicros(), new Receipt(r -> true, KEYS, new long[] {5}, new long[] {77})), nanos.get(),
                gcraLeases.epoch());

        advance(Duration.ofMillis(100));
        assertThat(gcraLeases.admit("c", 1).resetAfter()).as("10 s less 0.1 s, and one interval more").isEqualTo(Duration.ofMillis(10_900));
        assertThat(gcraLeases.admit("c", 2).resetAfter()).isEqualTo(Duration.ofMillis(12_900));
    }

    @Test
    void aFullTableMakesRoomFromEndedLeasesOnlyOncePerSweepIntervalAndOtherwiseLendsNothing() {
        for (int i = 0; i < QuotaLeases.MAX_CLIENTS; i++) {
            grant("c" + i, 900, 0);
        }
        assertThat(leases.size()).isEqualTo(QuotaLeases.MAX_CLIENTS);

        grant("one-more", 900, 5);
        assertThat(leases.size()).as("nothing has ended: no room").isEqualTo(QuotaLeases.MAX_CLIENTS);
        assertThat(leases.admit("one-more", 1)).isNull();
        assertThat(leases.takeUnused(100)).extracting(receipt -> receipt.permits(0))
                .as("the lease that found no room goes back whole").containsExactly(5L);

        advance(Duration.ofSeconds(2));
        grant("later", 900, 5);
        assertThat(leases.size()).as("the ended ones made room").isEqualTo(1);
        assertThat(leases.admit("later", 1)).isNotNull();
    }
}
