package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model check of quota leases (issue 37). Placeholder javadoc, completed below.
 */
class QuotaLeasesModelTest {
    static final long DEFAULT_SEED = 37;
    static final int DEFAULT_STEPS = 3000;

    static Stream<Algorithm> leasing() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET, Algorithm.GCRA);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("leasing")
    void leasedAdmissionsStayWithinWhatOnePlaceAdmitsAndComeBackWhole(Algorithm algorithm) {
        long seed = Long.getLong("leases.model.seed", DEFAULT_SEED);
        int steps = Integer.getInteger("leases.model.steps", DEFAULT_STEPS);
        int runs = Integer.getInteger("leases.model.runs", 1);
        for (int run = 0; run < runs; run++) {
            LeasesModel.Summary summary;
            long start = System.nanoTime();
            try (CapturedErr quiet = new CapturedErr()) {
                summary = new LeasesModel(new LeasesModel.Config(algorithm, seed + run, steps,
                        ModelSwitches.fromProperties(algorithm), 0)).run();
            }
            System.out.println("ms " + (System.nanoTime() - start) / 1_000_000);
            System.out.println("[leases model] " + algorithm.configName() + " seed " + (seed + run) + ": " + summary);
            assertThat(summary.leaseAdmissions()).as("admissions from leases").isPositive();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("leasing")
    void oneGiveBackAppliedTwiceIsCaught(Algorithm algorithm) {
        for (long seed = 1; seed <= 10; seed++) {
            long s = seed;
            try (CapturedErr quiet = new CapturedErr()) {
                new LeasesModel(new LeasesModel.Config(algorithm, s, 3000,
                        ModelSwitches.defaults(algorithm).withDoubleGiveBack(100), 0)).run();
                System.out.println("[double] " + algorithm + " seed " + s + " NOT caught");
            } catch (AssertionError caught) {
                String m = caught.getMessage();
                System.out.println("[double] " + algorithm + " seed " + s + " caught: " + m.substring(0, Math.min(250, m.length())));
            }
        }
    }
}
