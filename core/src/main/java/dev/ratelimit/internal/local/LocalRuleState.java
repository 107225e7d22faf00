package dev.ratelimit.internal.local;

import dev.ratelimit.Rule;
import dev.ratelimit.internal.rules.CalendarBounds;
import dev.ratelimit.internal.support.BucketUnits;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One rule's state for one client on this node alone, for {@link LocalLimiter}: each algorithm's
 * script ({@code core/src/main/resources/dev/ratelimit/scripts}) done over again in Java, with the
 * same integer arithmetic (and, for {@code sliding-window}, the same doubles), so that a node limits
 * on its own exactly as Redis would have, at its local limit. Time is microseconds on the limiter's
 * monotonic clock, never earlier than 0.
 *
 * <p>As in the scripts, {@link #check} decides without taking anything and {@link #commit} takes
 * what a check allowed: the limiter checks every rule before committing any, so several rules are
 * all or nothing. Results go into a reply laid out as a script's: per rule allowed, remaining,
 * retry-after and reset-after (µs). Not thread-safe: the limiter holds a lock around both calls.
 */
abstract class LocalRuleState {
    /** Offsets in a rule's four reply slots. */
    static final int ALLOWED = 0;
    static final int REMAINING = 1;
    static final int RETRY = 2;
    static final int RESET = 3;

    /**
     * Decides {@code permits} at {@code now}; writes the rule's four slots at {@code at}; takes
     * nothing. {@code consume} only shapes the reply, as in the scripts.
     */
    abstract boolean check(long permits, boolean consume, long now, long[] reply, int at);

    /** Takes the permits the check just allowed at the same {@code now}; rewrites remaining and reset. */
    abstract void commit(long permits, long now, long[] reply, int at);

    /** Whether the state says nothing any more at {@code now} (its Redis key would have expired). */
    abstract boolean clear(long now);

    static void answer(long[] reply, int at, boolean allowed, long remaining, long retry, long reset) {
        reply[at + ALLOWED] = allowed ? 1 : 0;
        reply[at + REMAINING] = remaining;
        reply[at + RETRY] = retry;
        reply[at + RESET] = reset;
    }

    /** {@code ceil(a / b)} for {@code a >= 0}, {@code b > 0}, as the scripts' {@code math.ceil}. */
    static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /**
     * Makes fresh states of the rule's algorithm, with what they derive from the rule worked out
     * once. The one place in the local limiter that switches on algorithms, as the script names do
     * for Redis. {@code epochMillis} places a calendar rule's periods.
     */
    static Supplier<LocalRuleState> factory(Rule rule, LongSupplier epochMillis) {
        long window = rule.windowMicros();
        long limit = rule.limit();
        if (rule.calendar() != null) {
            CalendarBounds periods = new CalendarBounds(rule.calendar(), rule.timeZone(), epochMillis);
            return () -> new CalendarWindow(limit, window, periods);
        }
        switch (rule.algorithm()) {
            case FIXED_WINDOW:
                return () -> new FixedWindow(limit, window);
            case SLIDING_LOG:
                return () -> new LocalSlidingLog(limit, window);
            case SLIDING_WINDOW:
                return () -> new SlidingWindow(limit, window);
            case TOKEN_BUCKET:
            case LEAKY_BUCKET: {
                BucketUnits units = BucketUnits.of(limit, window);
                long capacity = rule.burst() * units.scale;
                return () -> new LocalBucket(capacity, units.scale, units.rate);
            }
            case GCRA: {
                long interval = ceilDiv(window, limit);
                return () -> new LocalBucket(rule.burst() * interval, interval, 1);
            }
            default:
                throw new IllegalArgumentException("no local state for algorithm " + rule.algorithm());
        }
    }

    /** fixed-window.lua: a count that lives one window from the first admission. */
    static class FixedWindow extends LocalRuleState {
        private final long limit;
        private final long window;
        private long count;
        private long endsAt;

        FixedWindow(long limit, long window) {
            this.limit = limit;
            this.window = window;
        }

        /** How long a count started at {@code now} lives. */
        long windowFrom(long now) {
            return window;
        }

        @Override
        boolean check(long permits, boolean consume, long now, long[] reply, int at) {
            boolean live = !clear(now);
            long count = live ? this.count : 0;
            long left = live ? endsAt - now : 0;
            boolean allowed = count + permits <= limit;
            answer(reply, at, allowed, limit - count, allowed ? 0 : left, left);
            return allowed;
        }

        @Override
        void commit(long permits, long now, long[] reply, int at) {
            if (clear(now)) {
                count = 0;
                endsAt = now + windowFrom(now);
            }
            count += permits;
            reply[at + REMAINING] = limit - count;
            reply[at + RESET] = endsAt - now;
        }

        @Override
        boolean clear(long now) {
            return count == 0 || now >= endsAt;
        }
    }

    /**
     * calendar-window.lua: a count per calendar period in a time zone, which ends when the period does
     * (midnight, Monday, the first of the month), by this JVM's wall clock, as the script's period
     * starts are computed. So a count begun in an outage is gone at the period's end, and no answer
     * points past it; the script's longest period (a 25-hour day) is only its key's TTL.
     */
    static final class CalendarWindow extends FixedWindow {
        private final CalendarBounds periods;

        CalendarWindow(long limit, long longestPeriod, CalendarBounds periods) {
            super(limit, longestPeriod);
            this.periods = periods;
        }

        @Override
        long windowFrom(long now) {
            return Math.max(1, TimeUnit.MILLISECONDS.toMicros(periods.untilNextStartMillis()));
        }
    }

    /** sliding-window.lua: the current window's count and the previous one's, weighted by its overlap. */
    static final class SlidingWindow extends LocalRuleState {
        private final long limit;
        private final long window;
        private boolean stored;
        private long index;
        private long current;
        private long previous;
        /** What the last check read, for the commit that follows it at the same instant. */
        private long readIndex;
        private long readCurrent;
        private long readPrevious;
        private long readElapsed;

        SlidingWindow(long limit, long window) {
            this.limit = limit;
            this.window = window;
        }

        private void read(long now) {
            readIndex = now / window;
            readCurrent = 0;
            readPrevious = 0;
            if (stored && index == readIndex - 1) {
                readPrevious = current;
            } else if (stored && index >= readIndex) {
                readIndex = index;
                readCurrent = current;
                readPrevious = previous;
            }
            readElapsed = Math.max(0, now - readIndex * window);
        }

        @Override
        boolean check(long permits, boolean consume, long now, long[] reply, int at) {
            read(now);
            long elapsed = readElapsed;
            double estimate = (double) readPrevious * (window - elapsed) / window + readCurrent;
            long reset = readCurrent > 0 ? 2 * window - elapsed : readPrevious > 0 ? window - elapsed : 0;
            long available = (long) Math.floor(limit - estimate);
            if (estimate + permits > limit) {
                double retry;
                if (readCurrent + permits <= limit) {
                    retry = window - (double) (limit - readCurrent - permits) * window / readPrevious - elapsed;
                } else {
                    retry = (window - elapsed) + window - (double) (limit - permits) * window / readCurrent;
                }
                answer(reply, at, false, available, (long) Math.ceil(retry) + 1, reset);
                return false;
            }
            answer(reply, at, true, available, 0, reset);
            return true;
        }

        @Override
        void commit(long permits, long now, long[] reply, int at) {
            read(now);
            double estimate = (double) readPrevious * (window - readElapsed) / window + readCurrent;
            stored = true;
            index = readIndex;
            current = readCurrent + permits;
            previous = readPrevious;
            reply[at + REMAINING] = (long) Math.floor(limit - estimate - permits);
            reply[at + RESET] = 2 * window - readElapsed;
        }

        @Override
        boolean clear(long now) {
            return !stored || index < now / window - 1;
        }
    }
}
