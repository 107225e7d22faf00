package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model check of every writer of a client's state without quota leases (issue 48, "The model
 * holds every writer"): a seeded, reproducible run ({@link GiveBacksModel}) of 2 or 3 limiter nodes on
 * one Redis that runs the production scripts ({@code ScriptedRedisGateway}) and one manual clock, with
 * the deny cache on or off per seed, three clients (and the first again as a dimension), and steps
 * ({@link GiveBackSteps}): requests of 1 to 3 permits (some in batches of clients, {@code tryAcquireAll}),
 * delayed requests ({@code tryAcquire(key, maxDelay)}, in bursts too), refunds of any admission still held, delayed ones too, before or after their turn
 * (a cancelled or timed-out wait), after-charges above and below the cost, {@code reset} and {@code
 * resetEach}, live limit overrides up and down, Redis restarts that lose every key, the test kit's reset
 * (every key gone and every node told at once, so that it forgets its remembered denials), Redis failing
 * calls, refusing them or losing their replies, give-backs held and landing later in any order, and
 * time passing (microseconds to windows). Each algorithm runs on its own: fixed-window, sliding-log,
 * token-bucket and gcra with all of it; sliding-window and leaky-bucket, which take no delays or
 * charges (DelayRules, ChargeRules) and no overrides, with the rest; gcra also with a penalty rule.
 *
 * <p>The oracle ({@link EffectiveHistory}, {@link OnePlace}): per client and epoch (a reset or a
 * restart that lost the data or the kit's reset starts one), the effective history is every admission Redis counted, at
 * the instant it takes effect (a delayed one at its turn), replies lost or not; less the permits of
 * every give-back Redis applied (a dropped one leaves them counted, which is allowed; one applied
 * twice counts once); plus the permits of every after-charge, at its instant. After every step:
 * <ul>
 *   <li>each admission, delayed ones included, is within what the algorithm admits from one place for
 *       that history, at the largest limit in force (fixed-window: per window; sliding-log: per
 *       window-long span; sliding-window: its estimate; the buckets and gcra: replayed in the script's
 *       integer arithmetic), after-charges counted but not themselves checked;</li>
 *   <li>Redis' state of each client is never laxer than one place's (counted permits no fewer, tokens
 *       no more, a level no lower, a TAT no earlier);</li>
 *   <li>the state is within its size: a small value of the algorithm's format with a TTL, and a sliding
 *       log of at most the anchor, the limit, the entries booked ahead of its last write and the
 *       after-charges that may still count.</li>
 * </ul>
 *
 * <p>Step kinds that meet a known bug are off by default ({@link GiveBackSwitches#defaults}), each pinned
 * as a few steps in GiveBacksKnownBugsTest; turn one on with {@code -Dgivebacks.model.<switch>=true}.
 * One is left, {@code sameMicrosecond} (gcra, token-bucket): a life is the microsecond a state began, so
 * a state born in the microsecond of the reset that deleted the last one shares its life, and a
 * give-back from before the reset lands in it; off, a microsecond passes after every reset (Redis
 * answers no two calls in one microsecond, and the kit's clock moves one at a client's reset). A restart
 * takes 20 ms here (GiveBackResets.restart), and the kit's reset moves its clock as much. The
 * model found four more, now fixed, whose scenarios GiveBacksKnownBugsTest keeps: {@code staleGiveBacks}
 * (a give-back from before a reset or a restart landing in the fresh state of fixed-window,
 * sliding-window or sliding-log: a reset now leaves its guard, and their receipts carry the instant
 * they were taken or the state's life), {@code keyTtls} (a sliding-log refund that emptied the set for
 * a moment left the key without a TTL) and leaky-bucket's {@code refunds} (a refund lowered the level
 * by what had leaked too).
 * A failure names the seed, the switches ({@link GiveBackSwitches}), the last steps ({@code
 * -Dgivebacks.model.log=N} for more) and the command that reruns it with the fewest steps. Runs:
 * {@code -Dgivebacks.model.seed=S} (default {@value #DEFAULT_SEED}), {@code -Dgivebacks.model.runs=R}
 * (seeds S to S + R - 1, default {@value #DEFAULT_RUNS}), {@code -Dgivebacks.model.steps=N} (default
 * {@value #DEFAULT_STEPS}), {@code -Dgivebacks.model.only=gcra,fixed-window} (variants by name).
 */
@Execution(ExecutionMode.CONCURRENT) // each variant its own model and Redis; two at a time (core's pom)
class GiveBacksModelTest {
    static final long DEFAULT_SEED = 48;
    static final int DEFAULT_RUNS = 50;
    static final int DEFAULT_STEPS = 1000;

    static Stream<Arguments> variants() {
        String only = System.getProperty("givebacks.model.only", "");
        List<String> wanted = Arrays.stream(only.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .collect(Collectors.toList());
        return Stream.of(
                Arguments.of(Algorithm.FIXED_WINDOW, false), Arguments.of(Algorithm.SLIDING_LOG, false),
                Arguments.of(Algorithm.TOKEN_BUCKET, false), Arguments.of(Algorithm.GCRA, false),
                Arguments.of(Algorithm.SLIDING_WINDOW, false), Arguments.of(Algorithm.LEAKY_BUCKET, false),
                Arguments.of(Algorithm.GCRA, true))
                .filter(a -> wanted.isEmpty() || wanted.contains(name((Algorithm) a.get()[0], (Boolean) a.get()[1])));
    }

    private static String name(Algorithm algorithm, boolean penalty) {
        return algorithm.configName() + (penalty ? "+penalty" : "");
    }

    /** The command that reruns one model run for its first {@code steps} steps. */
    static String rerun(GiveBacksModel.Config config, int steps) {
        if (config.steps() == 0) {
            return "a scripted scenario (GiveBacksKnownBugsTest) with " + config.switches().asProperties();
        }
        return "mvn -B -pl core verify -Dtest='GiveBacksModelTest#everyWriterStaysWithinOnePlace' -Dit.test=none "
                + "-Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Djacoco.skip=true "
                + "-Dgivebacks.model.only=" + config.variant() + " -Dgivebacks.model.seed=" + config.seed()
                + " -Dgivebacks.model.runs=1 -Dgivebacks.model.steps=" + steps + " " + config.switches().asProperties();
    }

    private static GiveBacksModel model(Algorithm algorithm, boolean penalty, long seed, int steps, GiveBackSwitches switches) {
        return new GiveBacksModel(new GiveBacksModel.Config(algorithm, penalty, seed, steps, switches));
    }

    /** Runs the model quietly: the limiters log every failure and override they meet. */
    private static GiveBacksModel.Summary run(GiveBacksModel model) {
        CapturedErr quiet = CapturedErr.quiet();
        try {
            return model.run();
        } finally {
            quiet.close();
        }
    }

    @ParameterizedTest(name = "{0}, penalty {1}")
    @MethodSource("variants")
    void everyWriterStaysWithinOnePlace(Algorithm algorithm, boolean penalty) {
        long seed = Long.getLong("givebacks.model.seed", DEFAULT_SEED);
        int runs = Integer.getInteger("givebacks.model.runs", DEFAULT_RUNS);
        int steps = Integer.getInteger("givebacks.model.steps", DEFAULT_STEPS);
        GiveBackSwitches switches = GiveBackSwitches.fromProperties(algorithm);
        // A penalty and a delay exclude each other (DelayRules).
        switches = penalty ? switches.with("delays", false) : switches;
        long start = System.nanoTime();
        long admissions = 0;
        long applied = 0;
        for (long s = seed; s < seed + runs; s++) {
            GiveBacksModel.Summary summary = run(model(algorithm, penalty, s, steps, switches));
            admissions += summary.admissions() + summary.delayed();
            applied += summary.applied();
            if (runs <= 5) {
                System.out.println("[give-backs model] " + name(algorithm, penalty) + " seed " + s + ": " + summary);
            }
        }
        System.out.println("[give-backs model] " + name(algorithm, penalty) + ": " + runs + " seeds from " + seed + " x "
                + steps + " steps in " + (System.nanoTime() - start) / 1_000_000 + " ms, " + admissions + " admissions, "
                + applied + " give-backs applied");
        assertThat(admissions).as("admissions").isPositive();
        if (switches.refunds()) {
            assertThat(applied).as("give-backs applied").isPositive();
        }
    }

    /** Runs the seed without the fault (it must pass), then with it armed at step 100 (it must fail); returns the faulty run. */
    private static GiveBacksModel failsOnlyWithTheFault(Algorithm algorithm, long seed, String fault, String violation) {
        GiveBackSwitches switches = GiveBackSwitches.defaults(algorithm);
        run(model(algorithm, false, seed, 1000, switches));
        GiveBacksModel faulty = model(algorithm, false, seed, 1000, switches.withFault(fault, 100));
        assertThatThrownBy(() -> run(faulty)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("-Dgivebacks.model.seed=" + seed + " ").hasMessageContaining(violation);
        assertThat(faulty.step()).as("the step that failed").isBetween(100, 1000);
        return faulty;
    }

    /**
     * The model check catches one give-back applied twice ({@code CallFaults.replayNextRefund}, armed at
     * step 100, spent by the first give-back after it whose second run gives something back): on a seed
     * that passes without the fault, it fails at once, Redis counting less than one place. Not for
     * sliding-log, whose give-back of an entry finds nothing the second time.
     */
    @ParameterizedTest(name = "{0}, seed {1}")
    @CsvSource({"FIXED_WINDOW, 1", "TOKEN_BUCKET, 3", "GCRA, 1", "SLIDING_WINDOW, 1"})
    void oneGiveBackAppliedTwiceIsCaught(Algorithm algorithm, long seed) {
        GiveBacksModel faulty = failsOnlyWithTheFault(algorithm, seed, "replay", "applied again");
        assertThat(faulty.redis.faults().replayedRefunds()).as("the give-back applied twice").isEqualTo(1);
    }

    /**
     * The model check catches a give-back landing in a life other than its receipt's ({@code
     * CallFaults.refundIntoCurrentLife}: from step 100, refunds are sent with the life the client's state
     * has now, until one so sent gives something back): the lives of gcra and token-bucket states are
     * what keeps a stale give-back out, and without them Redis is laxer than one place.
     */
    @ParameterizedTest(name = "{0}, seed {1}")
    @CsvSource({"GCRA, 3", "TOKEN_BUCKET, 1"})
    void aGiveBackIntoANewLifeIsCaught(Algorithm algorithm, long seed) {
        GiveBacksModel faulty = failsOnlyWithTheFault(algorithm, seed, "life", "than one place's");
        assertThat(faulty.redis.faults().livesRewritten()).as("the give-back sent into the state's life now").isEqualTo(1);
    }

    /**
     * The model check catches a sliding log that its writes no longer trim ({@code CallFaults.ignoreTrims}
     * from step 100: ZREMRANGEBYSCORE removes nothing): the log outgrows its bound.
     */
    @Test
    void aLogNeverTrimmedIsCaught() {
        failsOnlyWithTheFault(Algorithm.SLIDING_LOG, 1, "trims", "entries, over its bound");
    }
}
