package dev.ratelimit.counter;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.RedisStore;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import java.time.Duration;

/**
 * Counts a client's events over the last window (say, failed logins in 15 minutes), in Redis, so
 * all nodes see one count. Memory per key is O(slots), not O(events): the window is cut into
 * {@code slots} slots and the count covers the current slot and the ones before it that are
 * still in the window, so it is precise to one slot ({@code window / slots}).
 *
 * <p>A null or empty client key throws {@link IllegalArgumentException}; an error reply from Redis throws
 * {@link RedisFailureException}, and so does a Redis that cannot be asked, but for a write, which is kept.
 *
 * <pre>{@code
 * SlidingWindowCounter failedLogins = SlidingWindowCounter.builder(redis, "failed-logins", Duration.ofMinutes(15)).build();
 * if (failedLogins.increment(userName) > 5) { ... }
 * }</pre>
 */
public final class SlidingWindowCounter extends Counter {
    private static final LuaScript SCRIPT = LuaScript.load("event-counter");
    /** Slots unless set: a count precise to 5% of the window. */
    public static final int DEFAULT_SLOTS = 20;

    private final int slots;
    private final String slotMicros;
    private final String slotCount;

    /** @throws IllegalArgumentException naming the bad argument and its value */
    private SlidingWindowCounter(Builder settings) {
        super(settings);
        if (settings.slots < 1 || settings.slots > 1000) {
            throw new IllegalArgumentException("slots must be between 1 and 1000, but was " + settings.slots);
        }
        this.slots = settings.slots;
        long windowMicros = window().toNanos() / 1000;
        this.slotMicros = Long.toString((windowMicros + slots - 1) / slots);
        this.slotCount = Integer.toString(slots);
    }

    /** Starts a counter; {@code name} is part of every Redis key, like a limiter's policy name. */
    public static Builder builder(RedisStore store, String name, Duration window) {
        return new Builder(store, name, window);
    }

    /**
     * Counts one event.
     *
     * @return the events in the window, this one included; or -1 when Redis cannot be reached, in which case
     *     the event is kept in memory and counted once Redis answers again (see {@link Builder#pendingLimit});
     *     an event whose write timed out after Redis ran it is not counted again
     */
    public long increment(String key) {
        return increment(key, 1);
    }

    /**
     * Counts {@code events} events at once.
     *
     * @return the events in the window, these included; or -1 when Redis cannot be reached (the events are
     *     kept and counted later, as for {@link #increment(String)})
     * @throws IllegalArgumentException if events is below 1
     */
    public long increment(String key, long events) {
        if (events < 1) {
            throw new IllegalArgumentException("events must be at least 1, but was " + events);
        }
        return writeOnce(SCRIPT, key, Immutable.listOf(Long.toString(events), slotMicros, slotCount));
    }

    /** The events in the window, without counting one. */
    public long count(String key) {
        return eval(SCRIPT, key, Immutable.listOf("0", slotMicros, slotCount));
    }

    @Override
    public String toString() {
        return "SlidingWindowCounter(" + name() + ", " + Durations.format(window()) + " in " + slots + " slots)";
    }

    /** Collects a counter's settings; {@link #build()} checks them. */
    public static final class Builder extends CounterBuilder<Builder> {
        private int slots = DEFAULT_SLOTS;

        private Builder(RedisStore store, String name, Duration window) {
            super(store, name, window);
        }

        /** Slots the window is cut into, 1 to 1000; more is more precise and more memory. */
        public Builder slots(int slots) {
            this.slots = slots;
            return this;
        }

        /** @throws IllegalArgumentException naming the bad argument and its value */
        public SlidingWindowCounter build() {
            return new SlidingWindowCounter(this);
        }
    }
}
