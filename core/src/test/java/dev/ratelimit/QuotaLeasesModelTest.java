package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model check of quota leases (issue 37): a seeded, reproducible run ({@link LeasesModel}) of
 * 2 to 4 limiter nodes built with {@code leases(true)} on one Redis that runs the production scripts
 * ({@code ScriptedRedisGateway}) and one manual clock, three clients of differing appetite, and
 * thousands of steps ({@link ModelSteps}): requests of 1 to 3 permits, time passing (microseconds to
 * windows), nodes giving their leases back, live overrides of the limit up and down, client resets,
 * the test kit's reset (every key gone, every node told at once and dropping its leases), nodes stopped or lost and replaced, Redis failing calls, refusing them or losing their replies,
 * give-backs held and landing later in any order, operations of one node (or another thread of the
 * same) while another's call is in flight, and settles. Each algorithm that lends (fixed-window,
 * sliding-log 40 per second; token-bucket, gcra 16 per second) runs on its own.
 *
 * <p>After every step:
 * <ul>
 *   <li>every admission, by Redis or from a lease, is within what the algorithm admits from one place
 *       ({@link AdmissionBounds}): per client and epoch (a reset or the kit's reset starts one; a lease's admissions belong
 *       to the epoch it was granted in, whose state counted them), fixed-window at most the limit per
 *       window, sliding-log per window-long span, token-bucket and gcra replayed in order through the
 *       script's own integer arithmetic;</li>
 *   <li>Redis' state of each client is never laxer than one place's for its admissions ({@link
 *       ModelChecks#states}), so a permit lost from Redis' count fails the step it is lost in;</li>
 *   <li>for the buckets, the same algorithm without leases, fed those admissions ({@link ModelOracle}),
 *       admits each of them;</li>
 *   <li>the nodes keep their word: a denial comes from Redis or the deny cache; a degraded admission
 *       only when one of its calls failed; a lease admission only from a lease granted to that node,
 *       and not from one that a reset, the kit's reset or an override the node has applied ended; with the deny cache
 *       on, a denial it answers is one Redis still gives.</li>
 * </ul>
 * And at each settle (and at the end): once every held give-back has landed and every node has given
 * its leases back, each client has in Redis what the oracle holds for its admissions: the client
 * gets its full limit back (exactly, for fixed-window; a lease's life later for the others, which is
 * how much longer a leased permit may count), unless a leak (a lost reply, a failed give-back, a lost
 * node, leases dropped at a reset) has touched its state since that state was last empty.
 *
 * <p>Why the bounds are sound, that is, why correct leases never break them: Redis decides each
 * admission against the limit of the node that asks; a lease's permits are counted in Redis before a
 * node admits from them and no earlier than it admits them (fixed-window: in the same window, which
 * the lease never outlives; sliding-log: one entry stamped at the lease's end; the buckets: taken as if
 * at the lease's end), so a one-place algorithm deciding each admission at its real instant is never
 * stricter than Redis was. Admissions Redis counted but whose reply was lost are in the history (Redis
 * counted them); degraded ones (onRedisFailure without Redis) are not. With overrides, the limit of a
 * bound is the largest any live node applied over the span the bound looks at (a node that has not yet
 * read an override decides, and admits from its leases, at the limit it has), and the limits divide
 * the window into whole microseconds, so that gcra's tolerance (burst x interval) is one window at any
 * of them and its replay at the largest limit is the most lenient.
 *
 * <p>Step kinds that meet a known lease bug are off by default ({@link ModelSwitches#defaults}), each
 * pinned as a few steps in QuotaLeasesKnownBugsTest; turn one on with {@code
 * -Dleases.model.<switch>=true}. A failure names the seed, the switches and the last steps ({@code
 * -Dleases.model.log=N} for more). Runs: {@code -Dleases.model.seed=S} (default {@value #DEFAULT_SEED}),
 * {@code -Dleases.model.steps=N} (default {@value #DEFAULT_STEPS}), {@code -Dleases.model.runs=R}
 * (seeds S to S + R - 1). {@value #DEFAULT_STEPS} steps take well under a second per algorithm.
 */
class QuotaLeasesModelTest {
    static final long DEFAULT_SEED = 37;
    static final int DEFAULT_STEPS = 5000;

    static Stream<Algorithm> leasing() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET, Algorithm.GCRA);
    }

    private static LeasesModel model(Algorithm algorithm, long seed, int steps, ModelSwitches switches) {
        return new LeasesModel(new LeasesModel.Config(algorithm, seed, steps, switches, 0));
    }

    /** Runs the model quietly: the limiters log every failure and override they meet. */
    private static LeasesModel.Summary run(LeasesModel model) {
        CapturedErr quiet = CapturedErr.quiet();
        try {
            return model.run();
        } finally {
            quiet.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("leasing")
    void leasedAdmissionsStayWithinWhatOnePlaceAdmitsAndComeBackWhole(Algorithm algorithm) {
        long seed = Long.getLong("leases.model.seed", DEFAULT_SEED);
        int steps = Integer.getInteger("leases.model.steps", DEFAULT_STEPS);
        int runs = Integer.getInteger("leases.model.runs", 1);
        ModelSwitches switches = ModelSwitches.fromProperties(algorithm);
        for (long s = seed; s < seed + runs; s++) {
            long start = System.nanoTime();
            LeasesModel.Summary summary = run(model(algorithm, s, steps, switches));
            System.out.println("[leases model] " + algorithm.configName() + " seed " + s + " in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms: " + summary);
            assertThat(summary.grants()).as("leases granted").isPositive();
            assertThat(summary.leaseAdmissions()).as("admissions from leases").isPositive();
            assertThat(summary.livenessChecked()).as("liveness checks that found a client's state untouched by a leak")
                    .isPositive();
        }
    }

    /**
     * The model check catches one give-back applied twice ({@code CallFaults.replayNextRefund}, armed
     * at step 100): on a seed that passes without the fault, it fails within a few hundred steps. For
     * gcra the seed is another: a rest given back where admissions were stacked after its lease gives
     * back only what stays ahead of them, and a second application may then still leave the TAT at or
     * after one place's (the others' seed may pass with it, not being laxer); seed 12 is one where it is not.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("leasing")
    void oneGiveBackAppliedTwiceIsCaught(Algorithm algorithm) {
        long seed = algorithm == Algorithm.GCRA ? 12 : 6;
        ModelSwitches switches = ModelSwitches.defaults(algorithm);
        run(model(algorithm, seed, 1000, switches));

        LeasesModel faulty = model(algorithm, seed, 1000, switches.withDoubleGiveBack(100));

        assertThatThrownBy(() -> run(faulty)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("-Dleases.model.seed=" + seed + " ").hasMessageContaining("one give-back applied twice");
        assertThat(faulty.redis.faults().replayedRefunds()).as("the give-back applied twice").isEqualTo(1);
        assertThat(faulty.step()).as("the step that failed").isBetween(100, 1000);
    }
}
