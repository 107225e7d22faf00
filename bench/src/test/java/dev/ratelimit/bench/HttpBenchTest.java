package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How the HTTP benchmark makes one row of its rounds. */
class HttpBenchTest {
    @Test
    void aRowReportsItsMedianRoundAndTheSpreadOfAll() {
        HttpBench.Row median = HttpBench.median(List.of(row(30_000, 40), row(27_000, 44), row(33_000, 38)));

        assertThat(median.requestsPerSecond()).isEqualTo(30_000);
        assertThat(median.serverMicros()).as("the median round's own figures").isEqualTo(40);
        assertThat(median.spread()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void ofAnEvenNumberOfRoundsTheLowerMiddleOne() {
        assertThat(HttpBench.median(List.of(row(30_000, 40), row(20_000, 50))).requestsPerSecond()).isEqualTo(20_000);
    }

    private static HttpBench.Row row(double requestsPerSecond, double serverMicros) {
        return new HttpBench.Row("`gcra`", 100, requestsPerSecond, 0.3, 2.0, serverMicros, 10, 0.5, 8, 0, 0);
    }
}
