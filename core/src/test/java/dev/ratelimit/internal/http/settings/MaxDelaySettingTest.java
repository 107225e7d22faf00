package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.ratelimit.internal.http.settings.FilterSettings.parse;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code maxDelay} and {@code maxDelayed}: read, bounded, and refused with what cannot reserve, at startup. */
class MaxDelaySettingTest {
    @Test
    void offByDefaultAndOnWithADefaultQueueOf1000() {
        assertThat(parse("limit", "5", "window", "1m").waiting()).isNull();
        assertThat(parse("limit", "5", "window", "1m", "maxDelay", "off").waiting()).isNull();
        HttpPolicy waiting = parse("limit", "5", "window", "1m", "algorithm", "gcra", "maxDelay", "2s");
        assertThat(waiting.waiting().maxDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(waiting.waiting().maxDelayed()).isEqualTo(1000);
        assertThat(waiting.toString()).contains(", maxDelay 2s, maxDelayed 1000");
        assertThat(parse(Map.of("maxDelay", "500ms", "maxDelayed", "20"), "limit", "5", "window", "1m").waiting()
                .maxDelayed()).isEqualTo(20);
        for (String algorithm : new String[] {"fixed-window", "sliding-log", "token-bucket", "gcra"}) {
            assertThat(parse("limit", "5", "window", "1m", "algorithm", algorithm, "maxDelay", "60s").waiting())
                    .as(algorithm).isNotNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "0", "0s", "61s", "1m1s", "PT0.0005S", "5 seconds"})
    void aBadValueStopsTheStartNamingTheSettingAndTheValue(String value) {
        assertThatThrownBy(() -> parse("limit", "5", "window", "1m", "maxDelay", value))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("init-param 'maxDelay' must be off or whole "
                        + "milliseconds from 1ms to 60s such as 2s, but was '" + value + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-3", "100001", "many"})
    void aBadQueueStopsTheStart(String value) {
        assertThatThrownBy(() -> parse("limit", "5", "window", "1m", "maxDelay", "2s", "maxDelayed", value))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("init-param 'maxDelayed' must be")
                .hasMessageContaining("'" + value + "'");
    }

    @Test
    void aQueueWithoutMaxDelayIsATypoNotIgnored() {
        assertThatThrownBy(() -> parse("limit", "5", "window", "1m", "maxDelayed", "50"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'maxDelayed' applies only with init-param 'maxDelay', which is off "
                        + "(maxDelayed was '50')");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "algorithm | leaky-bucket   | init-param 'maxDelay' ('2s') cannot be combined with algorithm leaky-bucket",
        "algorithm | sliding-window | init-param 'maxDelay' ('2s') cannot be combined with algorithm sliding-window",
        "algorithm | concurrency    | init-param 'maxDelay' ('2s') cannot be combined with algorithm concurrency",
        "transport | transaction    | init-param 'maxDelay' ('2s') cannot be combined with transport transaction",
        "leases    | true           | init-param 'maxDelay' ('2s') cannot be combined with leases",
        "penalty   | 5s             | init-param 'maxDelay' ('2s') cannot be combined with penalty",
        "calendar  | day            | init-param 'maxDelay' ('2s') cannot be combined with a calendar rule",
    })
    void whatCannotReserveIsRefusedNamingTheConflict(String setting, String value, String message) {
        String window = setting.equals("calendar") ? "calendar" : "window";
        String windowValue = setting.equals("calendar") ? "day" : "1m";
        assertThatThrownBy(() -> parse("limit", "5", window, windowValue, setting, value, "maxDelay", "2s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }

    @Test
    void severalDimensionsAreRefused() {
        assertThatThrownBy(() -> parse(Map.of("maxDelay", "2s"), "limits", "100 per 1m by global; 10 per 1m by ip"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("context-param 'ratelimit.maxDelay' ('2s') cannot be combined with limits");
    }
}
