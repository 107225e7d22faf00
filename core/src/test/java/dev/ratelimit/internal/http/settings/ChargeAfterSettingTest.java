package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code chargeAfter}: read, and refused at startup where an after-charge's debt cannot be kept. */
class ChargeAfterSettingTest {
    private static HttpPolicy parse(Map<String, String> contextParams, String... pairs) {
        return FilterSettings.parse(contextParams, pairs);
    }

    @Test
    void offByDefaultAndOnAsAnInitParamOrAContextParamForTheAlgorithmsThatKeepADebt() {
        assertThat(parse(Map.of(), "limit", "5", "window", "1m").chargeAfter()).isFalse();
        HttpPolicy charged = parse(Map.of(), "limit", "5", "window", "1m", "chargeAfter", "true");
        assertThat(charged.chargeAfter()).isTrue();
        assertThat(charged.toString()).contains(", chargeAfter true");
        assertThat(parse(Map.of("chargeAfter", "true"), "limit", "5", "window", "1m").chargeAfter()).isTrue();
        assertThat(parse(Map.of("chargeAfter", "true"), "limit", "5", "window", "1m", "chargeAfter", "false")
                .chargeAfter()).as("the init-param wins").isFalse();
        for (String algorithm : new String[] {"fixed-window", "sliding-log", "token-bucket", "gcra"}) {
            assertThat(parse(Map.of(), "limit", "5", "window", "1m", "algorithm", algorithm, "chargeAfter", "true")
                    .chargeAfter()).as(algorithm).isTrue();
        }
        assertThat(parse(Map.of(), "limit", "5", "window", "1m", "chargeAfter", "true", "countStatus", "2xx",
                "tiers", "gold:50", "tierFrom", "header:X-Tier").chargeAfter()).as("with countStatus and tiers").isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "1", "on", "TRUE!"})
    void aBadValueStopsTheStartNamingTheSettingAndTheValue(String value) {
        assertThatThrownBy(() -> parse(Map.of(), "limit", "5", "window", "1m", "chargeAfter", value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("init-param 'chargeAfter'").hasMessageContaining("'" + value + "'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "algorithm|concurrency|algorithm concurrency: it counts requests in flight",
        "algorithm|sliding-window|algorithm sliding-window: its state cannot hold a debt",
        "algorithm|leaky-bucket|algorithm leaky-bucket: its state cannot hold a debt",
        "transport|transaction|transport transaction: its MULTI/EXEC decisions",
        "leases|true|leases (true): a node admits from its lease without asking Redis"})
    void whatCannotKeepADebtIsRefusedNamingChargeAfterAndTheConflict(String name, String value, String conflict) {
        assertThatThrownBy(() -> parse(Map.of(), "limit", "5", "window", "1m", name, value, "chargeAfter", "true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("init-param 'chargeAfter' (true) cannot be combined with " + conflict);
    }

    @Test
    void severalRulesAndCalendarPeriodsAreRefusedAWebappWideDefaultIncluded() {
        assertThatThrownBy(() -> parse(Map.of("chargeAfter", "true"), "limits", "10 per 1m by ip; 100 per 1h by global"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("context-param 'ratelimit.chargeAfter' (true) cannot be combined with several rules");
        assertThatThrownBy(() -> parse(Map.of(), "limit", "5", "calendar", "day", "chargeAfter", "true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("init-param 'chargeAfter' (true) cannot be combined with a calendar period");
    }
}
