package dev.ratelimit.internal.engine;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A limiter's decisions per second over the last {@link #SECONDS} seconds, counted on the hot path
 * without a lock and without allocating: one slot per second of a ring, three counters per slot
 * (allowed, denied, degraded).
 *
 * <p>Each counter is one {@code long} holding its second (the low 32 bits of the epoch second, in
 * the high half) and its count (the low half). A writer whose second differs from the counter's
 * replaces the whole value by its second and a count of 1, by CAS; otherwise it adds one, by CAS.
 * So a stale slot is reset by the first write of its new second, and no count can fall between a
 * reset and an increment, as it could if the second were a tag beside the counts. A reader takes
 * a counter only when its second is the one asked for: slots nobody wrote for five minutes read
 * as 0, without any sweeping thread.
 */
final class ActivityRing {
    /** How far back the ring remembers: five minutes. */
    public static final int SECONDS = 300;

    private static final int ALLOWED = 0;
    private static final int DENIED = 1;
    private static final int DEGRADED = 2;
    private static final int COUNTERS = 3;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;

    private final AtomicLongArray counters = new AtomicLongArray(SECONDS * COUNTERS);

    /** Counts one decision; a degraded one is counted as allowed or denied too. */
    public void record(long epochSecond, boolean allowed, boolean degraded) {
        int slot = slot(epochSecond);
        long tag = epochSecond & COUNT_MASK;
        increment(slot + (allowed ? ALLOWED : DENIED), tag);
        if (degraded) {
            increment(slot + DEGRADED, tag);
        }
    }

    private void increment(int index, long tag) {
        while (true) {
            long value = counters.get(index);
            long next = (value >>> 32) == tag ? value + 1 : (tag << 32) | 1;
            if (counters.compareAndSet(index, value, next)) {
                return;
            }
        }
    }

    /** {@code [allowed, denied, degraded][second]} of the seconds up to {@code nowSecond} (included), oldest first. */
    public long[][] snapshot(long nowSecond) {
        long[][] series = new long[COUNTERS][SECONDS];
        long first = nowSecond - SECONDS + 1;
        for (int i = 0; i < SECONDS; i++) {
            long second = first + i;
            int slot = slot(second);
            long tag = second & COUNT_MASK;
            for (int c = 0; c < COUNTERS; c++) {
                long value = counters.get(slot + c);
                series[c][i] = (value >>> 32) == tag ? value & COUNT_MASK : 0;
            }
        }
        return series;
    }

    private static int slot(long epochSecond) {
        return (int) Math.floorMod(epochSecond, (long) SECONDS) * COUNTERS;
    }
}
