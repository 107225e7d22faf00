package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RuleTest {

    @Test
    void defaultsAreLimitAsBurstCostOneAndANameFromLimitAndWindow() {
        Rule rule = Rule.of(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
        assertThat(rule.burst()).isEqualTo(10);
        assertThat(rule.capacity()).isEqualTo(10);
        assertThat(rule.cost()).isEqualTo(1);
        assertThat(rule.name()).isEqualTo("10/1s");
        assertThat(rule.windowMicros()).isEqualTo(1_000_000);
        assertThat(rule).hasToString("10/1s: token-bucket 10 per 1s, burst 10");
    }

    @Test
    void burstIsTheCapacityOfBucketsOnly() {
        assertThat(Rule.builder(Algorithm.GCRA, 10, Duration.ofMinutes(1)).burst(3).build().capacity()).isEqualTo(3);
        assertThat(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)).capacity()).isEqualTo(10);
    }

    @Test
    void rulesWithEqualValuesAreEqual() {
        assertThat(Rule.of(Algorithm.GCRA, 5, Duration.ofSeconds(60)))
                .isEqualTo(Rule.of(Algorithm.GCRA, 5, Duration.ofMinutes(1)))
                .hasSameHashCodeAs(Rule.of(Algorithm.GCRA, 5, Duration.ofMinutes(1)))
                .isNotEqualTo(Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0     | limit must be positive, but was 0",
        "-5    | limit must be positive, but was -5",
    })
    void limitMustBePositive(long limit, String message) {
        assertThatThrownBy(() -> Rule.of(Algorithm.SLIDING_LOG, limit, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void windowMustBeBetweenOneMillisecondAndAYear() {
        assertThatThrownBy(() -> Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ZERO))
                .hasMessage("window must be between 1ms and 365d, but was 0ms");
        assertThatThrownBy(() -> Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(-1)))
                .hasMessage("window must be between 1ms and 365d, but was PT-1S");
        assertThatThrownBy(() -> Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ofDays(366)))
                .hasMessage("window must be between 1ms and 365d, but was 366d");
        assertThatThrownBy(() -> Rule.of(Algorithm.FIXED_WINDOW, 1, null))
                .hasMessage("window must be between 1ms and 365d, but was null");
        assertThat(Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ofDays(365)).window()).isEqualTo(Rule.MAX_WINDOW);
    }

    @Test
    void burstMustBeAtLeastOneAndOnlyForBuckets() {
        assertThatThrownBy(() -> Rule.builder(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).burst(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("burst must be at least 1, but was 0");
        assertThatThrownBy(() -> Rule.builder(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(1)).burst(5).build())
                .hasMessage("burst applies only to token-bucket, leaky-bucket and gcra, but was 5 for algorithm fixed-window");
    }

    @Test
    void costMustFitTheCapacity() {
        assertThatThrownBy(() -> Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(1)).burst(4).cost(5).build())
                .hasMessage("cost must be between 1 and the rule's capacity 4, but was 5");
        assertThatThrownBy(() -> Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)).cost(0).build())
                .hasMessage("cost must be between 1 and the rule's capacity 10, but was 0");
    }

    @Test
    void algorithmIsRequired() {
        assertThatThrownBy(() -> Rule.of(null, 1, Duration.ofSeconds(1)))
                .hasMessage("algorithm must be one of fixed-window, sliding-log, sliding-window, token-bucket, "
                        + "leaky-bucket, gcra, concurrency, but was null");
    }

    @Test
    void namesArePrintableWithoutBlanksOrBraces() {
        assertThat(Rule.builder(Algorithm.GCRA, 1, Duration.ofSeconds(1)).name("per-second").build().name())
                .isEqualTo("per-second");
        for (String bad : new String[] {"", "a b", "a{b}", "caf\u00e9", "x".repeat(65)}) {
            assertThatThrownBy(() -> Rule.builder(Algorithm.GCRA, 1, Duration.ofSeconds(1)).name(bad).build())
                    .hasMessage("name must be 1 to 64 printable ASCII characters without blanks or braces, but was '"
                            + bad + "'");
        }
    }

    @Test
    void bucketsRefuseRatesTooFineToCountExactly() {
        // 999,983 (a prime) per 365 days: scale = window in microseconds, far past 2^51 permits-units.
        assertThatThrownBy(() -> Rule.builder(Algorithm.TOKEN_BUCKET, 999_983, Duration.ofDays(365)).build())
                .hasMessage("burst 999983 with limit 999983 per 365d is too fine-grained to count exactly; "
                        + "use a round window such as 1s or 1m, or a smaller burst");
        assertThat(Rule.builder(Algorithm.TOKEN_BUCKET, 1_000_000, Duration.ofDays(1)).build().burst())
                .as("round numbers reduce well").isEqualTo(1_000_000);
    }

    @Test
    void countsTooLargeToBeExactAreRefusedNamingTheSetting() {
        long tooMany = Rule.MAX_LIMIT + 1;
        assertThatThrownBy(() -> Rule.of(Algorithm.FIXED_WINDOW, tooMany, Duration.ofMinutes(1)))
                .hasMessage("limit must be at most 1125899906842624 (larger counts are not exact as Lua numbers), "
                        + "but was 1125899906842625");
        assertThatThrownBy(() -> Rule.builder(Algorithm.GCRA, 10, Duration.ofMinutes(1)).burst(tooMany).build())
                .hasMessageStartingWith("burst must be at most 1125899906842624");
        // GCRA: one a year with a burst of 100 keeps its time a century ahead, past exact doubles.
        assertThatThrownBy(() -> Rule.builder(Algorithm.GCRA, 1, Duration.ofDays(365)).burst(100).build())
                .hasMessageContaining("spans more than 2^51 microseconds");
        assertThat(Rule.builder(Algorithm.GCRA, 1, Duration.ofDays(365)).burst(70).build().burst()).isEqualTo(70);
        assertThat(Rule.of(Algorithm.SLIDING_WINDOW, Rule.MAX_LIMIT, Duration.ofDays(1)).limit())
                .isEqualTo(Rule.MAX_LIMIT);
    }
}
