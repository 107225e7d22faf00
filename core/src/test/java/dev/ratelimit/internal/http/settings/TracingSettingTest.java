package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tracing} and {@code tracingSpan}: the core binds OpenTelemetry by name only, says what is missing when it is, and
 * shows a client key on a trace only when no word of the key may carry a secret.
 */
class TracingSettingTest {
    private static HttpPolicy parse(String... pairs) {
        Map<String, String> params = new HashMap<>(Map.of("limit", "5", "window", "1m"));
        for (int i = 0; i < pairs.length; i += 2) {
            params.put(pairs[i], pairs[i + 1]);
        }
        return HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name").parse(params);
    }

    @Test
    void opentelemetryWithoutItsJarsStopsTheStartNamingTheSettingAndTheJars() {
        // The core's test class path has no OpenTelemetry, as a webapp that forgot the jars.
        assertThatThrownBy(() -> parse("tracing", "opentelemetry"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("init-param 'tracing' is 'opentelemetry', but the OpenTelemetry API or the "
                        + "module is not on the class path")
                .hasMessageContaining("add dev.ratelimit:ratelimit-opentelemetry");
    }

    @Test
    void noneIsTheDefaultAndOtherWordsAreRefused() {
        assertThat(parse("tracing", "NONE").toString()).doesNotContain("tracing");
        assertThat(parse().limiters().trace()).isNull();
        assertThat(Settings.TRACING.defaultValue()).isEqualTo("none");
        assertThatThrownBy(() -> parse("tracing", "zipkin"))
                .hasMessage("init-param 'tracing' must be none or opentelemetry, but was 'zipkin'");
    }

    @Test
    void tracingSpanTakesCurrentOrOwnAndOnlyWithTracing() {
        assertThat(Settings.TRACING_SPAN.defaultValue()).isFalse();
        assertThatThrownBy(() -> parse("tracing", "opentelemetry", "tracingSpan", "child"))
                .hasMessage("init-param 'tracingSpan' must be current or own, but was 'child'");
        assertThatThrownBy(() -> parse("tracingSpan", "own"))
                .hasMessage("init-param 'tracingSpan' applies only with tracing=opentelemetry, but init-param "
                        + "'tracing' is 'none' (tracingSpan was 'own')");
    }

    @Test
    void aKeyIsShownOnlyWhenNoWordOfItMayBeASecret() {
        assertThat(parse("key", "ip").requests().clientKeyShown()).isTrue();
        assertThat(parse("key", "user+ip").requests().clientKeyShown()).isTrue();
        assertThat(parse("key", "global").requests().clientKeyShown()).isTrue();
        assertThat(parse("key", "header:X-Api-Key").requests().clientKeyShown()).isFalse();
        assertThat(parse("key", "ip+cookie:sid").requests().clientKeyShown()).isFalse();
        assertThat(parse("key", "session").requests().clientKeyShown()).isFalse();
        assertThat(parse("key", "param:token").requests().clientKeyShown()).isFalse();
    }
}
