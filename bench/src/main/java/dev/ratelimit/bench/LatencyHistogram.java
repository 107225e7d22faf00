package dev.ratelimit.bench;

/**
 * {@link LoadGenerator}'s latencies, counted in fixed buckets: 1 µs wide below 10 ms, 1 ms wide up
 * to 10 s, and one bucket for anything slower. Recording is an increment, so a request allocates
 * nothing; percentiles are exact to the bucket's width.
 */
final class LatencyHistogram {
    private static final int FINE_MICROS = 10_000;
    private static final int COARSE_MILLIS = 10_000;

    private final long[] fine = new long[FINE_MICROS];
    private final long[] coarse = new long[COARSE_MILLIS + 1];
    private long count;

    void record(long nanos) {
        long micros = nanos / 1_000;
        if (micros < FINE_MICROS) {
            fine[(int) micros]++;
        } else {
            coarse[(int) Math.min(COARSE_MILLIS, micros / 1_000)]++;
        }
        count++;
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < fine.length; i++) {
            fine[i] += other.fine[i];
        }
        for (int i = 0; i < coarse.length; i++) {
            coarse[i] += other.coarse[i];
        }
        count += other.count;
    }

    long count() {
        return count;
    }

    /** The latency below which {@code fraction} of the requests were answered, in microseconds; 0 if none. */
    long percentileMicros(double fraction) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * count));
        long seen = 0;
        for (int i = 0; i < fine.length; i++) {
            seen += fine[i];
            if (seen >= rank) {
                return i;
            }
        }
        for (int i = 0; i < coarse.length; i++) {
            seen += coarse[i];
            if (seen >= rank) {
                return i * 1_000L;
            }
        }
        throw new AssertionError("the buckets hold fewer requests than counted");
    }
}
