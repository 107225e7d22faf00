package dev.ratelimit.internal.local;

import static dev.ratelimit.internal.local.LocalRuleState.REMAINING;
import static dev.ratelimit.internal.local.LocalRuleState.answer;
import static dev.ratelimit.internal.local.LocalRuleState.ceilDiv;

import dev.ratelimit.internal.support.BucketUnits;

/** The bucket algorithms' local states, for {@link LocalLimiter}: see {@link LocalRuleState}. */
final class LocalBuckets {
    private LocalBuckets() {
    }

    /**
     * token-bucket.lua and leaky-bucket.lua, which count alike: a level in units of 1/scale permit
     * ({@link BucketUnits}), draining at rate units per µs; a token bucket's level is the tokens taken
     * from it, so it holds {@code capacity - level} tokens and refills as the level drains.
     */
    static final class Bucket extends LocalRuleState {
        private final long capacity;
        private final long scale;
        private final long rate;
        private long level;
        private long at;

        Bucket(long burst, BucketUnits units) {
            this.capacity = burst * units.scale;
            this.scale = units.scale;
            this.rate = units.rate;
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

    /** gcra.lua: the theoretical arrival time, at most burst intervals ahead of now. */
    static final class Gcra extends LocalRuleState {
        private final long interval;
        private final long tolerance;
        private long tat;

        Gcra(long interval, long tolerance) {
            this.interval = interval;
            this.tolerance = tolerance;
        }

        @Override
        boolean check(long permits, boolean consume, long now, long[] reply, int at) {
            long tat = Math.max(this.tat, now);
            long newTat = tat + permits * interval;
            long available = Math.floorDiv(tolerance - (tat - now), interval);
            boolean allowed = newTat - now <= tolerance;
            answer(reply, at, allowed, available, allowed ? 0 : newTat - tolerance - now, tat - now);
            return allowed;
        }

        @Override
        void commit(long permits, long now, long[] reply, int at) {
            tat = Math.max(tat, now) + permits * interval;
            reply[at + REMAINING] = Math.floorDiv(tolerance - (tat - now), interval);
            reply[at + RESET] = tat - now;
        }

        @Override
        boolean clear(long now) {
            return tat <= now;
        }
    }
}
