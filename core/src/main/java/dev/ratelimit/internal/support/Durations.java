package dev.ratelimit.internal.support;

import java.time.Duration;

/** Durations written the way configuration writes them: {@code 500ms}, {@code 10s}, {@code 1h}. */
public final class Durations {
    private static final long[] UNIT_MILLIS = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms"};

    private Durations() {
    }

    /**
     * The shortest exact form in the largest whole unit: {@code 1h}, {@code 90s}, {@code 250ms};
     * ISO-8601 for negative values or sub-millisecond parts.
     */
    public static String format(Duration duration) {
        if (duration.isNegative() || duration.getNano() % 1_000_000 != 0) {
            return duration.toString();
        }
        long millis = duration.toMillis();
        if (millis == 0) {
            return "0ms";
        }
        for (int i = 0; i < UNIT_MILLIS.length; i++) {
            if (millis % UNIT_MILLIS[i] == 0) {
                return millis / UNIT_MILLIS[i] + UNIT_NAMES[i];
            }
        }
        throw new AssertionError("every millisecond count is a whole number of milliseconds");
    }

    /** Whole seconds, rounded up: what headers such as {@code Retry-After} carry. */
    public static long ceilSeconds(Duration duration) {
        long seconds = duration.getSeconds();
        return duration.getNano() > 0 ? seconds + 1 : seconds;
    }

    /** A short pause before trying again; an interrupt ends it early and stays set for the caller's next wait. */
    public static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
