package dev.ratelimit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

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
    private final Function<RedisSettings, RedisStore> connect;

    /** A registry that opens each store with {@link RedisStore#connect(RedisSettings)}. */
    public RedisStoreRegistry() {
        this(RedisStore::connect);
    }

    /** A registry that opens its stores as {@code connect} does: a seam for tests (a clock of their own). */
    RedisStoreRegistry(Function<RedisSettings, RedisStore> connect) {
        this.connect = connect;
    }

    private static final class Entry {
        final RedisStore store;
        int users;

        Entry(RedisStore store) {
            this.store = store;
        }
    }

    /**
     * The registry kept in an application's attributes (a servlet context's), created there on
     * first use, so the filter and JAX-RS of one webapp share it and a redeployed webapp starts
     * with a new one.
     *
     * @param getAttribute e.g. {@code servletContext::getAttribute}
     * @param setAttribute e.g. {@code servletContext::setAttribute}
     */
    public static RedisStoreRegistry sharedIn(Function<String, Object> getAttribute,
            BiConsumer<String, Object> setAttribute) {
        synchronized (RedisStoreRegistry.class) {
            Object existing = getAttribute.apply(CONTEXT_ATTRIBUTE);
            if (existing instanceof RedisStoreRegistry) {
                return (RedisStoreRegistry) existing;
            }
            RedisStoreRegistry created = new RedisStoreRegistry();
            setAttribute.accept(CONTEXT_ATTRIBUTE, created);
            return created;
        }
    }

    /**
     * The store for these settings, opened on first use. Each call must be matched by one
     * {@link #release(RedisSettings)}.
     */
    public synchronized RedisStore acquire(RedisSettings settings) {
        Entry entry = stores.computeIfAbsent(settings, s -> new Entry(connect.apply(s)));
        entry.users++;
        return entry.store;
    }

    /**
     * Gives back one use; the last one closes the store. Releasing unknown settings does nothing.
     *
     * @return whether this was the last use, and the store is closed
     */
    public synchronized boolean release(RedisSettings settings) {
        Entry entry = stores.get(settings);
        if (entry != null && --entry.users == 0) {
            stores.remove(settings);
            entry.store.close();
            return true;
        }
        return false;
    }

    /** How many users hold the store of these settings now (0 when none is open): for operators and tests. */
    public synchronized int users(RedisSettings settings) {
        Entry entry = stores.get(settings);
        return entry == null ? 0 : entry.users;
    }

    /** Closes every store, whoever still uses it: for the end of the application. */
    public void closeAll() {
        List<RedisStore> open;
        synchronized (this) {
            open = new ArrayList<>();
            stores.values().forEach(entry -> open.add(entry.store));
            stores.clear();
        }
        open.forEach(RedisStore::close);
    }
}
