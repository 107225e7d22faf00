package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void formatsInTheLargestWholeUnit() {
        assertThat(Durations.format(Duration.ofDays(2))).isEqualTo("2d");
        assertThat(Durations.format(Duration.ofHours(25))).isEqualTo("25h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(Durations.format(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
        assertThat(Durations.format(Duration.ofNanos(1500))).isEqualTo("PT0.0000015S");
        assertThat(Durations.format(Duration.ofSeconds(-1))).isEqualTo("PT-1S");
    }
}
