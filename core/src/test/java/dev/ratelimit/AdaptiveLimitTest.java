package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
    private final AdaptiveLimit adaptive = AdaptiveLimit.floor(0.25).latencyTarget(Duration.ofMillis(100));

    @Test
    void cpuBelowSeventyPercentChangesNothing() {
        assertThat(adaptive.factor(0.10, 0)).isEqualTo(1.0);
        assertThat(adaptive.factor(0.70, 0)).isEqualTo(1.0);
    }

    @Test
    void cpuBetweenSeventyAndNinetyFivePercentLowersLinearlyToTheFloor() {
        assertThat(adaptive.factor(0.825, 0)).isCloseTo(0.625, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(adaptive.factor(0.95, 0)).isEqualTo(0.25);
        assertThat(adaptive.factor(1.0, 0)).isEqualTo(0.25);
    }

    @Test
    void latencyAboveTheTargetLowersByTheRatio() {
        assertThat(adaptive.factor(0.1, 100_000)).as("at the target").isEqualTo(1.0);
        assertThat(adaptive.factor(0.1, 200_000)).as("twice the target").isEqualTo(0.5);
        assertThat(adaptive.factor(0.1, 10_000_000)).as("never below the floor").isEqualTo(0.25);
        assertThat(AdaptiveLimit.floor(0.25).factor(0.1, 10_000_000)).as("no target: CPU only").isEqualTo(1.0);
    }

    @Test
    void theLowerOfCpuAndLatencyWins() {
        assertThat(adaptive.factor(0.825, 400_000)).isEqualTo(0.25);
        assertThat(adaptive.factor(0.825, 125_000)).isCloseTo(0.625, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void effectiveLimitsStayBetweenTheFloorAndTheConfiguredLimit() {
        assertThat(adaptive.effectiveLimit(100, 1.0)).isEqualTo(100);
        assertThat(adaptive.effectiveLimit(100, 0.5)).isEqualTo(50);
        assertThat(adaptive.effectiveLimit(100, 0.01)).isEqualTo(25);
        assertThat(adaptive.effectiveLimit(2, 0.25)).as("at least 1").isEqualTo(1);
        assertThat(adaptive.effectiveLimit(100, 7)).isEqualTo(100);
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> AdaptiveLimit.floor(0))
                .hasMessage("adaptive floor must be between 1% and 100% of the limit, but was 0%");
        assertThatThrownBy(() -> AdaptiveLimit.floor(0.5).latencyTarget(Duration.ZERO))
                .hasMessage("adaptive latency target must be positive, but was 0ms");
    }
}
