package dev.ratelimit.counter;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What every counter's builder takes: key prefix, pending-write limit and listeners. Subclasses
 * add their own settings and build.
 *
 * @param <B> the concrete builder, so that chained calls keep its type
 */
abstract class CounterBuilder<B extends CounterBuilder<B>> {
    final RedisStore store;
    final String name;
    final Duration window;
    String keyPrefix = RateLimiter.DEFAULT_KEY_PREFIX;
    int pendingLimit = Counter.DEFAULT_PENDING_LIMIT;
    final List<RateLimitListener> listeners = new ArrayList<>();

    CounterBuilder(RedisStore store, String name, Duration window) {
        this.store = Objects.requireNonNull(store, "store");
        this.name = name;
        this.window = window;
    }

    /** Prefix of every Redis key; {@value RateLimiter#DEFAULT_KEY_PREFIX} unless set. */
    public B keyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        return self();
    }

    /**
     * How many writes are kept in memory while Redis cannot be asked, 0 to 1,000,000 (default
     * 10,000; 0 makes writes throw instead). Past it the oldest are dropped and listeners told.
     */
    public B pendingLimit(int pendingLimit) {
        this.pendingLimit = pendingLimit;
        return self();
    }

    /** Adds a listener; counters tell it of dropped writes. */
    public B listener(RateLimitListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /** This builder, as the subclass it is. */
    @SuppressWarnings("unchecked")
    final B self() {
        return (B) this;
    }
}
