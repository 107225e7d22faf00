package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Predicate;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lease bugs of issue 37 that QuotaLeasesModelTest found, each cut down to a few deterministic
 * steps on two nodes of {@link LeasesModel} (same checks, same messages), and tied to the switch that
 * keeps its step kind out of the model check until it is fixed. With the switch off (today's
 * default) a scenario must still show its violation: that is the known bug, pinned. With it on
 * ({@code -Dleases.model.<switch>=true}, or once {@link ModelSwitches#defaults} turns it on) the
 * scenario must pass. So a fix shows here first: the pinned scenario fails, saying which switch to
 * turn on, and then the model check runs that step kind on every build.
 */
class QuotaLeasesKnownBugsTest {
    private static LeasesModel twoNodes(Algorithm algorithm, ModelSwitches switches) {
        return new LeasesModel(new LeasesModel.Config(algorithm, 1, 0, switches, 2));
    }

    /** The known bug shows, or, with its switch on, no violation does. */
    private static void pinned(String switchName, boolean fixed, String violation, ThrowingCallable scenario) {
        if (fixed) {
            assertThatCode(scenario).as("with -Dleases.model." + switchName + "=true the bug is expected fixed")
                    .doesNotThrowAnyException();
        } else {
            assertThatThrownBy(scenario).as("known bug of issue 37 behind switch '" + switchName + "': once it no longer "
                    + "shows, turn the switch on by default (ModelSwitches.defaults)").isInstanceOf(AssertionError.class)
                    .hasMessageContaining(violation);
        }
    }

    /** Requests of c0 on node {@code n} until one meets {@code stop}, at most {@code most}; returns the last answer. */
    private static String until(LeasesModel model, int n, int most, Predicate<String> stop) {
        String what = "";
        for (int i = 0; i < most && !stop.test(what); i++) {
            what = model.act(() -> model.request(n, 0, 1));
        }
        return what;
    }

    /** Three requests of c0 at once on node {@code n}: the third takes a lease of one permit. */
    private static void leaseOnePermit(LeasesModel model, int n) {
        for (int i = 0; i < 3; i++) {
            model.act(() -> model.request(n, 0, 1));
        }
    }

    /**
     * The deny cache (switch {@code denyCache}): node n0 remembers a denial of c0 until its
     * retry-after, but node n1 then gives back the lease it held for c0, and Redis admits c0 again
     * while n0 still denies it without asking. DecisionEngine forgets denials on a refund or a reset
     * made on the same node only; a give-back made elsewhere is never heard of.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aDenyCacheOutlivesAGiveBackOnAnotherNode(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("denyCache", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("denyCache", ModelSwitches.fromProperties(algorithm).denyCache(), "from its deny cache, while Redis admits it",
                () -> {
                    leaseOnePermit(model, 1);
                    until(model, 0, 200, what -> what.contains("denied by Redis"));
                    model.act(() -> {
                        model.giveBack(1);
                        return "n1 gives back its leases";
                    });
                    model.act(() -> model.request(0, 0, 1));
                });
    }

    /**
     * A late give-back of a bucket (switch {@code lateGiveBacks}): token-bucket and gcra take a
     * lease as if its permits were taken at the lease's end, after every earlier permit. Once the
     * clock is past that point the lease's permits drain as time passes; a rest given back later
     * (the node's next call comes when it comes) moves the TAT back by all of it, though part of it
     * had drained and later admissions are counted after it: refund.lua's gcra {@code max(now,
     * TAT - permits x interval)} (token-bucket's tokens capped at capacity alike) forgives permits
     * that one place would still count. Here n0 leases one permit at t0 behind three admissions
     * (TAT t0 + 250 ms), n1 admits c0 twice at t0 + 240 ms, and n0's next call, for c1, gives the
     * permit back: Redis' TAT ends up earlier than one place's by the part that had drained.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aBucketsLeaseGivenBackAfterItsEndForgivesWhatDrained(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("lateGiveBacks", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("lateGiveBacks", ModelSwitches.fromProperties(algorithm).lateGiveBacks(),
                algorithm == Algorithm.GCRA ? "TAT in Redis is" : "token units left in Redis, more than", () -> {
                    leaseOnePermit(model, 0);
                    model.act(() -> {
                        model.advance(240_000_000L);
                        return "time passes 240 ms";
                    });
                    model.act(() -> model.request(1, 0, 1));
                    model.act(() -> model.request(1, 0, 1));
                    model.act(() -> model.request(0, 1, 1));
                });
    }

    /**
     * The same with a give-back delayed in flight (switch {@code heldGiveBacks}): n0 gives its lease
     * back at the lease's end, on time, but the call times out and Redis runs it later, after n1 has
     * admitted c0 behind the lease's permits.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aBucketsGiveBackDelayedInFlightForgivesWhatDrained(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("heldGiveBacks", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("heldGiveBacks", ModelSwitches.fromProperties(algorithm).heldGiveBacks(),
                algorithm == Algorithm.GCRA ? "TAT in Redis is" : "token units left in Redis, more than", () -> {
                    leaseOnePermit(model, 0);
                    model.act(() -> {
                        model.redis.faults().holdRefunds(true);
                        model.advance(LeasesModel.LIFE_NANOS);
                        model.giveBack(0);
                        model.redis.faults().holdRefunds(false);
                        model.advance(140_000_000L);
                        return "n0 gives its lease back at its end, the call times out; 140 ms pass";
                    });
                    model.act(() -> model.request(1, 0, 1));
                    model.act(() -> model.request(1, 0, 1));
                    model.act(() -> "the give-back lands: " + model.redis.releaseHeld(0));
                });
    }

    /**
     * A reset (switch {@code resets}): n1 holds a lease of c0 when n0 resets c0, and gives the rest
     * back (here as it stops) before it has read the reset mark: the rest lands in c0's fresh state,
     * which n0 has meanwhile used up. fixed-window takes it back because the fresh window ends within
     * half a window of the old one (refund.lua's check); token-bucket and gcra because they keep no
     * receipt at all; sliding-log because n0's own fresh lease entry is stamped at the same instant
     * as n1's old one (now + a lease's life), so the old receipt finds it. README says only the
     * buckets, and only one lease more once.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aLeaseRestGivenBackAfterAResetElsewhereLandsInTheFreshState(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("resets", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("resets", ModelSwitches.fromProperties(algorithm).resets(), "c0", () -> {
            leaseOnePermit(model, 1);
            model.act(() -> model.reset(0, 0));
            until(model, 0, 200, what -> what.contains("denied"));
            model.act(() -> {
                model.giveBack(1);
                return "n1 gives back its leases";
            });
            until(model, 0, 5, what -> what.contains("denied"));
        });
    }

    /**
     * A grant in flight across an override (switch {@code inFlightOverrides}): while n0's decision
     * that takes a lease of c0 is in flight, an override lowers the limit and another decision on
     * n0 (another thread) applies it, ending every lease n0 holds; then the grant arrives and
     * QuotaLeases.granted installs it, and n0 goes on admitting under the limit that no longer holds.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "GCRA"})
    void aGrantInFlightOutlivesAnOverrideOnItsNode(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("inFlightOverrides", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("inFlightOverrides", ModelSwitches.fromProperties(algorithm).inFlightOverrides(), "applied new rules", () -> {
            model.act(() -> model.request(0, 0, 1));
            model.act(() -> model.request(0, 0, 1));
            model.act(() -> {
                model.redis.faults().afterNextScript(algorithm.configName(), () -> {
                    model.override(0, model.overrideLimits[0]);
                    model.request(0, 2, 1);
                });
                return model.request(0, 0, 1) + " {in flight: n0 lowers the limit and applies it}";
            });
            model.act(() -> model.request(0, 0, 1));
        });
    }

    /**
     * A grant in flight across a reset on its own node (switch {@code resets}): while n0's decision
     * that takes a lease of c0 is in flight, n0 resets c0 (RateLimiter.reset forgets c0's lease,
     * deletes its keys, marks the reset); then the grant arrives and is installed, and n0 admits c0
     * from permits of a state that no longer exists, whose rest will later land in the fresh one.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aGrantInFlightOutlivesAResetOnItsNode(Algorithm algorithm) {
        ModelSwitches switches = ModelSwitches.defaults(algorithm).with("resets", true);
        LeasesModel model = twoNodes(algorithm, switches);
        pinned("resets", ModelSwitches.fromProperties(algorithm).resets(), "admitted c0 from a lease granted before", () -> {
            model.act(() -> model.request(0, 0, 1));
            model.act(() -> model.request(0, 0, 1));
            model.act(() -> {
                model.redis.faults().afterNextScript(algorithm.configName(), () -> model.reset(0, 0));
                return model.request(0, 0, 1) + " {in flight: n0 resets c0}";
            });
            model.act(() -> model.request(0, 0, 1));
        });
    }
}
