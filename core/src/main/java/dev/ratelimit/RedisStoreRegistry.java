package dev.ratelimit;

import java.util.HashMap;
import java.util.Map;

/**
 * Shares one {@link RedisStore} per distinct {@link RedisSettings} among many users (the filters
 * and resources of one webapp), and closes it when the last user releases it. Keep one registry
 * per application (a servlet context attribute, not a static field, so a redeployed webapp never
 * inherits the old one's connections). Thread-safe.
 */
public final class RedisStoreRegistry {
    /** The servlet context attribute under which the filter and JAX-RS keep a webapp's registry. */
    public static final String CONTEXT_ATTRIBUTE = RedisStoreRegistry.class.getName();

    private final Map<RedisSettings, Entry> stores = new HashMap<>();

    private static final class Entry {
        final RedisStore store;
        int users;

        Entry(RedisStore store) {
            this.store = store;
        }
    }

    /**
     * The store for these settings, opened on first use. Each call must be matched by one
     * {@link #release(RedisSettings)}.
     */
    public synchronized RedisStore acquire(RedisSettings settings) {
        Entry entry = stores.computeIfAbsent(settings, s -> new Entry(RedisStore.connect(s)));
        entry.users++;
        return entry.store;
    }

    /** Gives back one use; the last one closes the store. Releasing unknown settings does nothing. */
    public synchronized void release(RedisSettings settings) {
        Entry entry = stores.get(settings);
        if (entry != null && --entry.users == 0) {
            stores.remove(settings);
            entry.store.close();
        }
    }

    /** How many distinct stores are open. */
    public synchronized int openStores() {
        return stores.size();
    }
}
