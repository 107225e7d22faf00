package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AlgorithmAndTransportTest {

    @Test
    void algorithmsAreFoundByTheirConfigurationNames() {
        for (Algorithm algorithm : Algorithm.values()) {
            assertThat(Algorithm.fromConfigName(algorithm.configName())).isSameAs(algorithm);
        }
        assertThat(Algorithm.fromConfigName(" Token-Bucket ")).isSameAs(Algorithm.TOKEN_BUCKET);
        assertThat(Algorithm.SLIDING_WINDOW.isExact()).isFalse();
        assertThat(Algorithm.GCRA.usesBurst()).isTrue();
    }

    @Test
    void eachAlgorithmSaysWhatItAccepts() {
        assertThat(Algorithm.namesWhere(Algorithm::usesBurst)).isEqualTo("token-bucket, leaky-bucket and gcra");
        assertThat(Algorithm.namesWhere(Algorithm::adapts))
                .isEqualTo("fixed-window, sliding-log, sliding-window and gcra");
        assertThat(Algorithm.namesWhere(Algorithm::runsAsTransaction)).isEqualTo("fixed-window and sliding-log");
        assertThat(Algorithm.namesWhere(algorithm -> !algorithm.isExact())).isEqualTo("sliding-window");
        for (Algorithm algorithm : Algorithm.values()) {
            Rule rule = Rule.of(algorithm, 10, java.time.Duration.ofSeconds(1));
            assertThat(algorithm.scriptArguments(rule)).as(algorithm + "'s script takes values after the permits")
                    .isNotEmpty();
        }
    }

    @Test
    void anUnknownAlgorithmListsTheKnownOnes() {
        assertThatThrownBy(() -> Algorithm.fromConfigName("fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("algorithm must be one of fixed-window, sliding-log, sliding-window, token-bucket, "
                        + "leaky-bucket, gcra, concurrency, but was 'fast'");
    }

    @Test
    void transportsAreFoundByTheirConfigurationNames() {
        assertThat(Transport.fromConfigName("lua")).isSameAs(Transport.LUA);
        assertThat(Transport.fromConfigName("TRANSACTION")).isSameAs(Transport.TRANSACTION);
        assertThatThrownBy(() -> Transport.fromConfigName("pipeline"))
                .hasMessage("transport must be one of lua, transaction, but was 'pipeline'");
    }
}
