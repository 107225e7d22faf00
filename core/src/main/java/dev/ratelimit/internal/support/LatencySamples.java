package dev.ratelimit.internal.support;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The most recent call latencies in a fixed ring, written without locks on the hot path and sorted
 * only when someone asks for percentiles (a JMX console, rarely).
 */
public final class LatencySamples {
    private final AtomicLongArray ring;
    private final AtomicLong written = new AtomicLong();

    public LatencySamples(int size) {
        this.ring = new AtomicLongArray(size);
    }

    public void record(long nanos) {
        ring.set((int) (written.getAndIncrement() % ring.length()), nanos);
    }

    /** The recent samples, sorted once, for several percentiles at a time. */
    public Snapshot snapshot() {
        int count = (int) Math.min(written.get(), ring.length());
        long[] samples = new long[count];
        for (int i = 0; i < count; i++) {
            samples[i] = ring.get(i);
        }
        Arrays.sort(samples);
        return new Snapshot(samples);
    }

    /**
     * @param fraction e.g. 0.99
     * @return that percentile of the recent samples in microseconds, or 0 when there are none
     */
    public long percentileMicros(double fraction) {
        return snapshot().percentileMicros(fraction);
    }

    /** Recent samples, sorted: percentiles in microseconds, 0 when there are none. */
    public static final class Snapshot {
        private final long[] sorted;

        Snapshot(long[] sorted) {
            this.sorted = sorted;
        }

        /** How many samples it holds (at most the ring's size). */
        public int count() {
            return sorted.length;
        }

        /** @param fraction e.g. 0.99 */
        public long percentileMicros(double fraction) {
            int index = Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1);
            return sorted.length == 0 ? 0 : sorted[Math.max(0, index)] / 1000;
        }

        public long maxMicros() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1000;
        }
    }
}
