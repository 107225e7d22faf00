package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AlgorithmScriptArgumentsTest {

    @Test
    void bucketsCountInExactIntegerUnits() {
        // 3 per second: gcd(3, 1,000,000) = 1, so a permit is 1,000,000 units refilled 3 per microsecond.
        Rule rule = Rule.builder(Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(1)).burst(5).build();
        assertThat(rule.algorithm().scriptArguments(rule)).containsExactly("5000000", "1000000", "3");
        // 10 per second reduces: a permit is 100,000 units refilled 1 per microsecond.
        Rule round = Rule.of(Algorithm.LEAKY_BUCKET, 10, Duration.ofSeconds(1));
        assertThat(round.algorithm().scriptArguments(round)).containsExactly("1000000", "100000", "1");
    }

    @Test
    void gcraRoundsItsIntervalUpNeverAdmittingFaster() {
        assertThat(Algorithm.GCRA.scriptArguments(Rule.of(Algorithm.GCRA, 3, Duration.ofSeconds(1))))
                .containsExactly("333334", "3");
        assertThat(Algorithm.GCRA.scriptArguments(Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1))))
                .containsExactly("100000", "10");
    }
}
