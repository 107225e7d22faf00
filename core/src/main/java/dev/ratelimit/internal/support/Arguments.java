package dev.ratelimit.internal.support;

import java.time.Duration;

/** Argument checks shared by rules and counters, so their messages agree. */
public final class Arguments {
    private Arguments() {
    }

    /** The longest window of a rule or counter. */
    public static final Duration MAX_WINDOW = Duration.ofDays(365);
    /** The shortest window: Redis keys expire by the millisecond. */
    public static final Duration MIN_WINDOW = Duration.ofMillis(1);

    /**
     * The longest penalty: a client shut out for longer is banned, which a firewall or a block list
     * does better than a rate limiter, and a penalty set by mistake should cost users at most a day.
     */
    public static final Duration MAX_PENALTY = Duration.ofDays(1);

    /** A duration Redis keeps by the millisecond ({@code maxDelay}, a penalty box's PX): whole ms from 1 ms to max. */
    public static Duration checkWholeMillis(String setting, Duration value, Duration max) {
        if (value == null || !isWholeMillis(value, max)) {
            // Far past the bound, shown as ISO-8601: Durations.format counts milliseconds in a long.
            throw new BadArgument(setting, setting + " must be whole milliseconds between 1ms and "
                    + Durations.format(max) + ", but was " + (value == null ? "null"
                    : value.compareTo(max.multipliedBy(1000)) > 0 ? value.toString() : Durations.format(value)));
        }
        return value;
    }

    /** Whether a duration is within {@link #checkWholeMillis}'s bounds: whole milliseconds from 1 ms to {@code max}. */
    public static boolean isWholeMillis(Duration value, Duration max) {
        return !value.isNegative() && !value.isZero() && value.compareTo(max) <= 0 && value.getNano() % 1_000_000 == 0;
    }

    public static void checkWindow(Duration window) {
        if (window == null || window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new BadArgument("window", "window must be between 1ms and 365d, but was "
                    + (window == null ? "null" : Durations.format(window)));
        }
    }
}
