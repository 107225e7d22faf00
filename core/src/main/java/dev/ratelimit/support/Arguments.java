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

    /**
     * The longest penalty: a client shut out for longer is banned, which a firewall or a block list
     * does better than a rate limiter, and a penalty set by mistake should cost users at most a day.
     */
    public static final Duration MAX_PENALTY = Duration.ofDays(1);

    /**
     * A penalty is whole milliseconds (its box expires by PX), from 1 ms to {@link #MAX_PENALTY}.
     *
     * @return the penalty
     */
    public static Duration checkPenalty(Duration penalty) {
        if (!isPenalty(penalty)) {
            // Far past the bound, shown as ISO-8601: Durations.format counts milliseconds in a long.
            throw new BadArgument("penalty", "penalty must be whole milliseconds between 1ms and 1d, but was "
                    + (penalty.compareTo(MAX_PENALTY.multipliedBy(1000)) > 0 ? penalty.toString() : Durations.format(penalty)));
        }
        return penalty;
    }

    /** Whether a penalty is within {@link #checkPenalty}'s bounds. */
    public static boolean isPenalty(Duration penalty) {
        return !penalty.isNegative() && !penalty.isZero() && penalty.compareTo(MAX_PENALTY) <= 0
                && penalty.getNano() % 1_000_000 == 0;
    }

    public static void checkWindow(Duration window) {
        if (window == null || window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new BadArgument("window", "window must be between 1ms and 365d, but was "
                    + (window == null ? "null" : Durations.format(window)));
        }
    }
}
