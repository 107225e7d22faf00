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

    @Test
    void theTracingRowsDifferOnlyInTheirTracingAndRunBehindAServerSpan() {
        List<HttpBench.Setup> traced = new HttpBench("redis://127.0.0.1:1", HttpRunShape.fromSystemProperties(true),
                HttpRows.ALL)
                .setups().stream().filter(setup -> setup.what().contains("server span")).toList();

        assertThat(traced).extracting(HttpBench.Setup::what).containsExactly(
                "`gcra`, server span, tracing=none", "`gcra`, server span, tracing=opentelemetry",
                "`gcra`, server span, tracingSpan=own");
        assertThat(traced).allSatisfy(setup -> {
            assertThat(setup.clients()).isEqualTo(HttpBench.MANY_CLIENTS);
            assertThat(setup.filterClass()).isEqualTo(ServerSpanAheadFilter.class.getName() + "," + HttpBench.OURS);
            assertThat(setup.params()).containsEntry("algorithm", "gcra").containsEntry("leases", "false");
        });
        assertThat(traced).extracting(setup -> setup.params().get("keyPrefix")).doesNotHaveDuplicates();
        assertThat(traced.get(2).params()).containsEntry("tracingSpan", "own");
        assertThat(traced.get(1).params()).doesNotContainKey("tracingSpan");
    }

    private static HttpBench.Row row(double requestsPerSecond, double serverMicros) {
        return new HttpBench.Row("`gcra`", 100, requestsPerSecond, 0.3, 2.0, serverMicros, 10, 0.5, 8, 0, 0);
    }
}
