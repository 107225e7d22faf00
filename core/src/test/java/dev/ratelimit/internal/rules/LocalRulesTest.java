package dev.ratelimit.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.BadArgument;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalRulesTest {
    @Test
    void localRulesRunTheFirstRuleAtTheLocalLimitAndScaleBurstAndOtherRules() {
        Rule bucket = Rule.builder(Algorithm.TOKEN_BUCKET, 100, Duration.ofMinutes(1)).burst(50).cost(2).name("b").build();
        assertThat(LocalRules.scale(List.of(bucket), 10)).containsExactly(
                Rule.builder(Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1)).burst(5).cost(2).name("b").build());
        assertThat(LocalRules.scale(List.of(bucket), 1).get(0).burst()).as("at least 1").isEqualTo(1);
        assertThat(LocalRules.scale(List.of(bucket), 1).get(0).cost()).as("capped at the capacity")
                .isEqualTo(1);

        Rule perSecond = Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)).name("s").build();
        Rule perHour = Rule.builder(Algorithm.SLIDING_LOG, 1000, Duration.ofHours(1)).name("h").build();
        assertThat(LocalRules.scale(List.of(perSecond, perHour), 4)).extracting(Rule::limit)
                .containsExactly(4L, 400L);
        assertThat(LocalRules.scale(List.of(perSecond), 10)).containsExactly(perSecond);
    }

    @Test
    void aBadLocalLimitIsRefusedNamingItAndItsValue() {
        List<Rule> rules = List.of(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)));
        assertThatThrownBy(() -> LocalRules.scale(rules, 0)).isInstanceOf(BadArgument.class)
                .hasMessage("localLimit must be a whole number between 1 and 1125899906842624, but was 0")
                .satisfies(e -> assertThat(((BadArgument) e).argument()).isEqualTo("localLimit"));
        assertThatThrownBy(() -> LocalRules.scale(rules, -3)).hasMessageEndingWith("but was -3");
        assertThatThrownBy(() -> LocalRules.scale(rules, Rule.MAX_LIMIT + 1))
                .hasMessageEndingWith("but was " + (Rule.MAX_LIMIT + 1));
        Rule bucket = Rule.builder(Algorithm.TOKEN_BUCKET, 1, Duration.ofSeconds(1)).burst(1000).build();
        assertThatThrownBy(() -> LocalRules.scale(List.of(bucket), Rule.MAX_LIMIT))
                .isInstanceOf(BadArgument.class)
                .hasMessageStartingWith("localLimit 1125899906842624 cannot scale rule 1/1s: token-bucket 1 per 1s, "
                        + "burst 1000: burst must be at most");
    }
}
