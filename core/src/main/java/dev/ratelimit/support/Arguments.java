package dev.ratelimit.support;

import java.time.Duration;

/** Argument checks shared by rules and counters, so their messages agree. */
public final class Arguments {
    private Arguments() {
    }

    /** The longest window of a rule or counter. */
    public static final Duration MAX_WINDOW = Duration.ofDays(365);
    /** The shortest window: Redis keys expire by the millisecond. */
    public static final Duration MIN_WINDOW = Duration.ofMillis(1);

    public static void checkWindow(Duration window) {
        if (window == null || window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new BadArgument("window", "window must be between 1ms and 365d, but was "
                    + (window == null ? "null" : Durations.format(window)));
        }
    }
}
