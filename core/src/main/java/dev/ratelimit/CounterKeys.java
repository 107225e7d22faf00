package dev.ratelimit;

import dev.ratelimit.internal.LuaScript;
import dev.ratelimit.internal.RedisKeys;
import java.time.Duration;
import java.util.List;

/** What the counters share: a store, a named window and the key layout; checked once here. */
final class CounterKeys {
    private final RedisStore store;
    private final String name;
    private final String keyPrefix;
    private final Duration window;

    private CounterKeys(RedisStore store, String name, String keyPrefix, Duration window) {
        this.store = store;
        this.name = name;
        this.keyPrefix = keyPrefix;
        this.window = window;
    }

    /** @throws IllegalArgumentException for a bad name, prefix or window */
    static CounterKeys of(RedisStore store, String name, String keyPrefix, Duration window) {
        RedisKeys.checkKeyPart("name", name, 1, RateLimiter.MAX_NAME_LENGTH);
        RedisKeys.checkKeyPart("keyPrefix", keyPrefix, 0, RateLimiter.MAX_NAME_LENGTH);
        Arguments.checkWindow(window);
        return new CounterKeys(store, name, keyPrefix, window);
    }

    String name() {
        return name;
    }

    Duration window() {
        return window;
    }

    /** {@code <keyPrefix><name>:{<key>}}. */
    String redisKey(String key) {
        return RedisKeys.key(keyPrefix, name, RedisKeys.checkClientKey("key", key));
    }

    void clear(String key) {
        store.gateway().delete(List.of(redisKey(key)));
    }

    /** Runs a counter script on the client's key; the scripts answer {count}. */
    long eval(LuaScript script, String key, List<String> args) {
        return store.gateway().eval(script, List.of(redisKey(key)), args).get(0);
    }
}
