package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code metrics}: the core binds Micrometer by name only, and says what is missing when it is. */
class MetricsSettingTest {
    private static HttpPolicy parse(String metrics) {
        return HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(Map.of("limit", "5", "window", "1m", "metrics", metrics));
    }

    @Test
    void micrometerWithoutItsJarsStopsTheStartNamingTheSettingAndTheJars() {
        // The core's test class path has no Micrometer, as a webapp that forgot the jars.
        assertThatThrownBy(() -> parse("micrometer"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("init-param 'metrics' is 'micrometer', but Micrometer is not on the class path")
                .hasMessageContaining("add dev.ratelimit:ratelimit-micrometer and io.micrometer:micrometer-core");
    }

    @Test
    void noneIsTheDefaultAndOtherWordsAreRefused() {
        assertThat(parse("none").toString()).doesNotContain("metrics");
        assertThat(Settings.METRICS.defaultValue()).isEqualTo("none");
        assertThatThrownBy(() -> parse("prometheus"))
                .hasMessage("init-param 'metrics' must be none or micrometer, but was 'prometheus'");
    }
}
