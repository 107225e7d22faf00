package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one bound of durations Redis keeps by the millisecond ({@code maxDelay}, {@code penalty}). */
class ArgumentsTest {
    private static final Duration MAX = Duration.ofSeconds(60);

    @Test
    void wholeMillisecondsFromOneMillisecondToTheBoundPass() {
        assertThat(Arguments.checkWholeMillis("maxDelay", Duration.ofMillis(1), MAX)).isEqualTo(Duration.ofMillis(1));
        assertThat(Arguments.checkWholeMillis("maxDelay", MAX, MAX)).isEqualTo(MAX);
        assertThat(Arguments.isWholeMillis(Duration.ofMillis(1500), MAX)).isTrue();
    }

    @Test
    void anythingElseIsRefusedNamingTheSettingTheBoundAndTheValue() {
        assertThatThrownBy(() -> Arguments.checkWholeMillis("maxDelay", MAX.plusMillis(1), MAX))
                .isInstanceOf(BadArgument.class)
                .hasMessage("maxDelay must be whole milliseconds between 1ms and 1m, but was 60001ms");
        assertThatThrownBy(() -> Arguments.checkWholeMillis("penalty", Duration.ZERO, Duration.ofDays(1)))
                .hasMessage("penalty must be whole milliseconds between 1ms and 1d, but was 0ms");
        assertThatThrownBy(() -> Arguments.checkWholeMillis("penalty", Duration.ofMillis(-5), Duration.ofDays(1)))
                .hasMessage("penalty must be whole milliseconds between 1ms and 1d, but was PT-0.005S");
        assertThatThrownBy(() -> Arguments.checkWholeMillis("maxDelay", Duration.ofNanos(1_500_000), MAX))
                .hasMessage("maxDelay must be whole milliseconds between 1ms and 1m, but was PT0.0015S");
        assertThatThrownBy(() -> Arguments.checkWholeMillis("maxDelay", null, MAX))
                .hasMessage("maxDelay must be whole milliseconds between 1ms and 1m, but was null");
    }

    @Test
    void aValueTooLongToCountInMillisecondsIsShownAsIso8601() {
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
        assertThatThrownBy(() -> Arguments.checkWholeMillis("penalty", huge, Duration.ofDays(1)))
                .hasMessage("penalty must be whole milliseconds between 1ms and 1d, but was " + huge);
    }
}
