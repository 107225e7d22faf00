package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A request above a limit scaled down by adaptive limits, denied from a peek of the client's state. */
class DeniedUntilLimitsRiseTest {
    private static final Rule RULE = Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(1))
            .penalty(Duration.ofSeconds(30)).build();

    @Test
    void itWaitsForTheLaterOfTheNextAdaptationAndTheClearState() {
        Decision state = Decision.of(true, RULE, 10, Duration.ZERO, Duration.ofMillis(200));
        Decision denied = OverCapacity.deniedUntilLimitsRise(state, Duration.ofSeconds(1));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(denied.penalized()).isFalse();
    }

    @Test
    void aClientInThePenaltyBoxStaysThereAndIsNotBoxedAnew() {
        Decision boxed = DecisionAccess.get().penaltyDenial(RULE, 0, Duration.ofSeconds(20), Duration.ofSeconds(20),
                false);
        Decision denied = OverCapacity.deniedUntilLimitsRise(boxed, Duration.ofSeconds(1));
        assertThat(denied.penalized()).as("still a refusal by the box").isTrue();
        assertThat(DecisionAccess.get().opensPenalty(denied)).isFalse();
        assertThat(denied.retryAfter()).as("until the box ends").isEqualTo(Duration.ofSeconds(20));
    }
}
