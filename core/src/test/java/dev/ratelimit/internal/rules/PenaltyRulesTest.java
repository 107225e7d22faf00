package dev.ratelimit.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the API refuses a penalty it cannot keep, and the rule's own bounds. */
class PenaltyRulesTest {
    private static final Rule BOXED = Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(1))
            .penalty(Duration.ofSeconds(30)).build();

    @Test
    void oneRuleOverLuaWithoutLeasesAndWithAllowOrDenyKeepsIt() {
        for (FailurePolicy policy : new FailurePolicy[] {null, FailurePolicy.ALLOW, FailurePolicy.DENY}) {
            assertThatCode(() -> PenaltyRules.check(List.of(BOXED), Transport.LUA, false, policy)).doesNotThrowAnyException();
        }
        Rule plain = Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1));
        assertThatCode(() -> PenaltyRules.check(List.of(plain, Rule.builder(Algorithm.GCRA, 100, Duration.ofMinutes(1))
                .build()), Transport.TRANSACTION, true, FailurePolicy.LOCAL)).as("no penalty, nothing to refuse")
                .doesNotThrowAnyException();
    }

    @Test
    void whatCannotKeepItIsRefusedNamingTheSettingAndTheConflict() {
        Rule hourly = Rule.builder(Algorithm.GCRA, 100, Duration.ofHours(1)).name("hourly").build();
        assertThatThrownBy(() -> PenaltyRules.check(List.of(BOXED, hourly), Transport.LUA, false, null))
                .hasMessageStartingWith("penalty (30s) cannot be combined with several rules");
        assertThatThrownBy(() -> PenaltyRules.check(List.of(BOXED), Transport.TRANSACTION, false, null))
                .hasMessageStartingWith("penalty (30s) cannot be combined with transport transaction");
        assertThatThrownBy(() -> PenaltyRules.check(List.of(BOXED), Transport.LUA, true, null))
                .hasMessageStartingWith("penalty (30s) cannot be combined with leases");
        assertThatThrownBy(() -> PenaltyRules.check(List.of(BOXED), Transport.LUA, false, FailurePolicy.LOCAL))
                .hasMessageStartingWith("penalty (30s) cannot be combined with onRedisFailure local");
    }

    @Test
    void theRuleBoundsItsPenaltyAndRefusesConcurrencyAndCalendars() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusMillis(1),
            Duration.ofNanos(1_500_000)}) {
            assertThatThrownBy(() -> Rule.builder(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)).penalty(bad).build())
                    .as(bad.toString()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("penalty must be whole milliseconds between 1ms and 1d, but was ");
        }
        assertThat(Rule.builder(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)).penalty(Duration.ofMillis(1)).build()
                .penalty()).isEqualTo(Duration.ofMillis(1));
        assertThatThrownBy(() -> Rule.builder(Algorithm.CONCURRENCY, 5, Duration.ofMinutes(1))
                .penalty(Duration.ofSeconds(5)).build())
                .hasMessageStartingWith("penalty (5s) cannot be combined with algorithm concurrency");
        assertThatThrownBy(() -> Rule.calendar(5, CalendarPeriod.DAY, ZoneOffset.UTC).penalty(Duration.ofSeconds(5)).build())
                .hasMessageStartingWith("penalty (5s) cannot be combined with calendar day");
    }

    @Test
    void aPenaltyIsPartOfTheRulesValue() {
        Rule same = Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(1)).penalty(Duration.ofSeconds(30)).build();
        assertThat(same).isEqualTo(BOXED).hasSameHashCodeAs(BOXED);
        assertThat(Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1))).isNotEqualTo(BOXED);
        assertThat(BOXED.toString()).endsWith(", penalty 30s");
    }
}
