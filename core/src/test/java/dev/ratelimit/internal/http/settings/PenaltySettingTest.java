package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code penalty}: read, bounded, and refused with what cannot keep a penalty box, at startup. */
class PenaltySettingTest {
    private static HttpPolicy parse(Map<String, String> contextParams, String... pairs) {
        return FilterSettings.parse(contextParams, pairs);
    }

    private static HttpPolicy parse(String... pairs) {
        return parse(Map.of(), pairs);
    }

    @Test
    void offByDefaultAndOnAsAnInitParamOrAContextParam() {
        assertThat(parse("limit", "5", "window", "1m").rule().penalty()).isNull();
        assertThat(parse("limit", "5", "window", "1m", "penalty", "off").rule().penalty()).isNull();
        HttpPolicy boxed = parse("limit", "5", "window", "1m", "penalty", "15m");
        assertThat(boxed.rule().penalty()).isEqualTo(Duration.ofMinutes(15));
        assertThat(boxed.toString()).contains(", penalty 15m");
        assertThat(parse(Map.of("penalty", "5s"), "limit", "5", "window", "1m").rule().penalty())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(parse("limit", "5", "window", "1m", "penalty", "PT0.25S").rule().penalty())
                .isEqualTo(Duration.ofMillis(250));
        assertThat(parse("limit", "5", "window", "1m", "penalty", "1d").rule().penalty()).isEqualTo(Duration.ofDays(1));
        for (String algorithm : new String[] {"fixed-window", "sliding-log", "sliding-window", "token-bucket",
            "leaky-bucket", "gcra"}) {
            assertThat(parse("limit", "5", "window", "1m", "algorithm", algorithm, "penalty", "5s").rule().penalty())
                    .as(algorithm).isEqualTo(Duration.ofSeconds(5));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "0", "0s", "-5s", "25h", "365d", "PT0.0005S", "999999999999d", "5 minutes"})
    void aBadValueStopsTheStartNamingTheSettingAndTheValue(String value) {
        assertThatThrownBy(() -> parse("limit", "5", "window", "1m", "penalty", value))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("init-param 'penalty' must be off or whole "
                        + "milliseconds from 1ms to 1d such as 15m or 5s, but was '" + value + "'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "algorithm      | concurrency | init-param 'penalty' (5s) cannot be combined with algorithm concurrency",
        "transport      | transaction | init-param 'penalty' (5s) cannot be combined with transport transaction",
        "leases         | true        | init-param 'penalty' (5s) cannot be combined with leases",
        "onRedisFailure | local       | init-param 'penalty' (5s) cannot be combined with onRedisFailure local",
        "calendar       | day         | init-param 'penalty' (5s) cannot be combined with calendar day",
    })
    void whatCannotKeepAPenaltyBoxIsRefusedNamingTheConflict(String setting, String value, String message) {
        String window = setting.equals("calendar") ? "calendar" : "window";
        String windowValue = setting.equals("calendar") ? "day" : "1m";
        assertThatThrownBy(() -> parse("limit", "5", window, windowValue, setting, value, "penalty", "5s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }

    @Test
    void severalDimensionsAreRefusedEvenWhenThePenaltyIsAWebappWideDefault() {
        assertThatThrownBy(() -> parse(Map.of("penalty", "5s"), "limits", "100 per 1m by global; 10 per 1m by ip"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("context-param 'ratelimit.penalty' ('5s') cannot be combined with "
                        + "init-param 'limits'");
    }
}
