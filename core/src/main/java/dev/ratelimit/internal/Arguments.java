package dev.ratelimit.internal;

import dev.ratelimit.Rule;
import java.time.Duration;

/** Argument checks shared by rules and counters, so their messages agree. */
public final class Arguments {
    private Arguments() {
    }

    public static void checkWindow(Duration window) {
        if (window == null || window.compareTo(Rule.MIN_WINDOW) < 0 || window.compareTo(Rule.MAX_WINDOW) > 0) {
            throw new BadArgument("window", "window must be between 1ms and 365d, but was "
                    + (window == null ? "null" : Durations.format(window)));
        }
    }
}
