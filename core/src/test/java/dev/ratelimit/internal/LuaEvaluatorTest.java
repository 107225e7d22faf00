package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LuaEvaluatorTest {

    @Test
    void bucketsCountInExactIntegerUnits() {
        // 3 per second: gcd(3, 1,000,000) = 1, so a permit is 1,000,000 units refilled 3 per microsecond.
        Rule rule = Rule.builder(Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(1)).burst(5).build();
        assertThat(LuaEvaluator.scriptArgs(rule)).containsExactly("5000000", "1000000", "3");
        // 10 per second reduces: a permit is 100,000 units refilled 1 per microsecond.
        Rule round = Rule.of(Algorithm.LEAKY_BUCKET, 10, Duration.ofSeconds(1));
        assertThat(LuaEvaluator.scriptArgs(round)).containsExactly("1000000", "100000", "1");
    }

    @Test
    void gcraRoundsItsIntervalUpNeverAdmittingFaster() {
        assertThat(LuaEvaluator.scriptArgs(Rule.of(Algorithm.GCRA, 3, Duration.ofSeconds(1))))
                .containsExactly("333334", "3");
        assertThat(LuaEvaluator.scriptArgs(Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1))))
                .containsExactly("100000", "10");
    }

    @Test
    void everyAlgorithmHasItsScriptFollowedByTheSharedDriverOnce() {
        String driver = LuaScript.load("limiter-driver").source();
        for (Algorithm algorithm : Algorithm.values()) {
            LuaScript script = LuaEvaluator.script(algorithm);
            assertThat(script.source()).startsWith("-- " + algorithm.configName() + ":").endsWith(driver);
            assertThat(script.source().split("-- limiter-driver:", -1)).as("the driver appears once").hasSize(2);
            assertThat(script.sha1()).hasSize(40);
        }
        assertThat(LuaEvaluator.script(Algorithm.GCRA).sha1()).isNotEqualTo(LuaEvaluator.script(Algorithm.TOKEN_BUCKET)
                .sha1());
    }
}
