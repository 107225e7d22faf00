package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.internal.redis.LuaScript;
import org.junit.jupiter.api.Test;

class LuaEvaluatorTest {

    @Test
    void everyAlgorithmHasItsScriptBetweenTheSharedPenaltyBoxAndClockAndTheDriverOnce() {
        String penalty = LuaScript.load("limiter-penalty").source();
        String clock = LuaScript.load("limiter-clock").source();
        String driver = LuaScript.load("limiter-driver").source();
        for (Algorithm algorithm : Algorithm.values()) {
            LuaScript script = LuaEvaluator.script(algorithm);
            assertThat(script.source()).startsWith(penalty + "\n" + clock + "\n-- " + algorithm.configName() + ":").endsWith(driver);
            assertThat(script.source().split("-- limiter-driver:", -1)).as("the driver appears once").hasSize(2);
            assertThat(script.source().split("-- limiter-clock:", -1)).as("the clock appears once").hasSize(2);
            assertThat(script.source().split("-- limiter-penalty:", -1)).as("the penalty box appears once").hasSize(2);
            assertThat(script.sha1()).hasSize(40);
        }
        assertThat(LuaEvaluator.script(Algorithm.GCRA).sha1()).isNotEqualTo(LuaEvaluator.script(Algorithm.TOKEN_BUCKET)
                .sha1());
    }
}
