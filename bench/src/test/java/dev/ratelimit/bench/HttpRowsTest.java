package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** An HTTP run of some rows: which rows run, and a report that names only their targets. */
class HttpRowsTest {
    private final List<HttpBench.Setup> every = new HttpBench("redis://127.0.0.1:1",
            HttpRunShape.fromSystemProperties(true), HttpRows.ALL).setups();

    @Test
    void theSelectedRowsRunWithTheAnchorsOfTheirClientsOnly() {
        List<HttpBench.Setup> selected = new HttpRows(Pattern.compile("^100 .*leases")).select(every);

        assertThat(selected).extracting(HttpBench.Setup::what).containsExactly(HttpBench.NO_FILTER,
                HttpBench.TOMCAT_FILTER, HttpBench.FLOOR, "`fixed-window`, leases", "`sliding-log`, leases",
                "`token-bucket`, leases", "`gcra`, leases");
        assertThat(selected).allSatisfy(setup -> assertThat(setup.clients()).isEqualTo(HttpBench.BUSY_CLIENTS));
    }

    @Test
    void allRowsUnlessSelected() {
        assertThat(HttpRows.ALL.select(every)).isSameAs(every);
        assertThat(HttpRows.fromSystemProperties()).as("the property is unset here").isEqualTo(HttpRows.ALL);
    }

    @Test
    void aSelectionOfNothingOrABadPatternIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new HttpRows(Pattern.compile("no such row")).select(every))
                .hasMessageContaining("bench.http.rows 'no such row' selects no row");
        System.setProperty(HttpRows.PROPERTY, "leases(");
        try {
            assertThatThrownBy(HttpRows::fromSystemProperties).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("bench.http.rows must be a regular expression, but was 'leases('");
        } finally {
            System.clearProperty(HttpRows.PROPERTY);
        }
    }

    @Test
    void theSectionOfSomeRowsHasTheirTablesAndTargetsOnly() {
        List<HttpBench.Row> rows = List.of(row(HttpBench.NO_FILTER, 40_000, 30), row(HttpBench.TOMCAT_FILTER, 38_000, 32),
                row(HttpBench.FLOOR, 20_000, 50), row("`gcra`, leases", 36_000, 33));
        HttpBench.Report report = new HttpBench.Report(ZonedDateTime.of(2026, 11, 29, 20, 0, 0, 0, ZoneOffset.UTC),
                BenchmarkReport.HTTP_COMMAND, "wrk", Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(5),
                3, "7.0.15", "those matching `^100 .*leases`, with their anchors", rows, Map.of(), Duration.ofMinutes(3),
                new double[] {1, 2}, List.of());

        String section = new HttpBenchMarkdown(report).section();

        assertThat(section).contains("| rows | those matching `^100 .*leases`, with their anchors |", "### 100 clients",
                "| `gcra`, leases | 36,000 | 0.95 |", "`gcra`, leases, 100 busy clients: ≥ 0.8 × Tomcat's filter requests/s "
                + "| 0.95 × | yes |", "`gcra`, leases, 100 busy clients: ≤ 5 µs server CPU per request over no filter | 3.0 µs");
        assertThat(section).doesNotContain("### 10,000 clients", "The load generators", "`fixed-window`", "10,000 clients:");
    }

    private static HttpBench.Row row(String what, double requestsPerSecond, double serverMicros) {
        return new HttpBench.Row(what, HttpBench.BUSY_CLIENTS, requestsPerSecond, 0.3, 2, serverMicros, 0, 0.01, 8, 0,
                0.05);
    }
}
