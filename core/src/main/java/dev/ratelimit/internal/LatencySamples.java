package dev.ratelimit.internal;

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

    /**
     * @param fraction e.g. 0.99
     * @return that percentile of the recent samples in microseconds, or 0 when there are none
     */
    public long percentileMicros(double fraction) {
        int count = (int) Math.min(written.get(), ring.length());
        if (count == 0) {
            return 0;
        }
        long[] samples = new long[count];
        for (int i = 0; i < count; i++) {
            samples[i] = ring.get(i);
        }
        Arrays.sort(samples);
        int index = Math.min(count - 1, (int) Math.ceil(fraction * count) - 1);
        return samples[Math.max(0, index)] / 1000;
    }
}
