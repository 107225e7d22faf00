package dev.ratelimit.counter;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.RedisStore;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;

/**
 * Counts the distinct items a client used in the last window, exactly (say, distinct user names
 * tried from one address in 10 minutes). Items are stored like client keys: long or unusual ones
 * by their digest. The set per client is capped at {@code maxItems} (dropping the longest unseen),
 * so the count stops rising at the cap and no client can grow Redis without bound.
 *
 * <p>A null or empty client key or item throws {@link IllegalArgumentException}; an error reply from Redis
 * throws {@link RedisFailureException}, and so does a Redis that cannot be asked, but for an add, which is kept.
 *
 * <pre>{@code
 * DistinctCounter namesTried = DistinctCounter.builder(redis, "names-per-ip", Duration.ofMinutes(10)).build();
 * if (namesTried.add(clientIp, userName) > 20) { ... }
 * }</pre>
 */
public final class DistinctCounter extends Counter {
    private static final LuaScript SCRIPT = LuaScript.load("distinct-counter");
    /** The cap on items per client unless set. */
    public static final int DEFAULT_MAX_ITEMS = 10_000;

    private final String windowMicros;
    private final String maxItems;

    /** @throws IllegalArgumentException naming the bad argument and its value */
    private DistinctCounter(Builder settings) {
        super(settings);
        if (settings.maxItems < 1 || settings.maxItems > 1_000_000) {
            throw new IllegalArgumentException("maxItems must be between 1 and 1000000, but was " + settings.maxItems);
        }
        this.windowMicros = Long.toString(window().toNanos() / 1000);
        this.maxItems = Integer.toString(settings.maxItems);
    }

    /** Starts a counter; {@code name} is part of every Redis key, like a limiter's policy name. */
    public static Builder builder(RedisStore store, String name, Duration window) {
        return new Builder(store, name, window);
    }

    /**
     * Notes that the client used the item now.
     *
     * @return the distinct items in the window, this one included (at most maxItems); or -1 when Redis cannot
     *     be reached, in which case the item is kept in memory and added once Redis answers again (see
     *     {@link Builder#pendingLimit})
     */
    public long add(String key, String item) {
        String stored = RedisKeys.clientPart(RedisKeys.checkClientKey("item", item));
        return write(SCRIPT, key, Immutable.listOf(stored, windowMicros, maxItems));
    }

    /** The distinct items in the window. */
    public long count(String key) {
        return eval(SCRIPT, key, Immutable.listOf("", windowMicros, maxItems));
    }

    @Override
    public String toString() {
        return "DistinctCounter(" + name() + ", " + Durations.format(window()) + ", at most " + maxItems + ")";
    }

    /** Collects a counter's settings; {@link #build()} checks them. */
    public static final class Builder extends CounterBuilder<Builder> {
        private int maxItems = DEFAULT_MAX_ITEMS;

        private Builder(RedisStore store, String name, Duration window) {
            super(store, name, window);
        }

        /** The most items kept per client, 1 to 1,000,000. */
        public Builder maxItems(int maxItems) {
            this.maxItems = maxItems;
            return this;
        }

        /** @throws IllegalArgumentException naming the bad argument and its value */
        public DistinctCounter build() {
            return new DistinctCounter(this);
        }
    }
}
