package dev.ratelimit.internal.local;

/**
 * The bucket algorithms' local state, for {@link LocalLimiter} (see {@link LocalRuleState}): a
 * level in units of 1/scale permit, draining at rate units per µs. token-bucket.lua and
 * leaky-bucket.lua count alike: a token bucket's level is the tokens taken from it, so it holds
 * {@code capacity - level} tokens and refills as the level drains ({@code BucketUnits}). gcra.lua's
 * theoretical arrival time is such a bucket too, in microseconds: its level is how far the time is
 * ahead of now, a permit an emission interval, and its capacity the burst's intervals.
 */
final class LocalBucket extends LocalRuleState {
    private final long capacity;
    private final long scale;
    private final long rate;
    private long level;
    private long at;

    LocalBucket(long capacity, long scale, long rate) {
        this.capacity = capacity;
        this.scale = scale;
        this.rate = rate;
    }

    private long level(long now) {
        // Drain only down to empty, so that elapsed * rate never grows past what a long holds.
        long elapsed = Math.max(0, now - at);
        return elapsed >= ceilDiv(level, rate) ? 0 : level - elapsed * rate;
    }

    @Override
    boolean check(long permits, boolean consume, long now, long[] reply, int at) {
        long level = level(now);
        long pour = permits * scale;
        boolean allowed = level + pour <= capacity;
        answer(reply, at, allowed, (capacity - level) / scale,
                allowed ? 0 : ceilDiv(level + pour - capacity, rate), ceilDiv(level, rate));
        return allowed;
    }

    @Override
    void commit(long permits, long now, long[] reply, int at) {
        long filled = level(now) + permits * scale;
        level = filled;
        this.at = now;
        reply[at + REMAINING] = (capacity - filled) / scale;
        reply[at + RESET] = ceilDiv(filled, rate);
    }

    @Override
    boolean clear(long now) {
        return level(now) == 0;
    }
}
