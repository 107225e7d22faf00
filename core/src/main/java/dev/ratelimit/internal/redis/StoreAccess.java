package dev.ratelimit.internal.redis;

import java.util.function.Function;

/**
 * Lets the API's own packages beside {@code RedisStore} (the counters) reach the
 * {@link RedisGateway} inside a store. Why a bridge: {@code RedisStore} is public API and must not
 * offer its gateway to applications. Why the store is an {@code Object} here: the transport lies
 * below the API and names none of its types, so that no package circle forms; {@code RedisStore}
 * installs the bridge when its class is initialised, as the JDK's "shared secrets" do, and casts.
 * Not for applications.
 */
public final class StoreAccess {
    private static volatile Function<Object, RedisGateway> bridge;

    private StoreAccess() {
    }

    /** Called once, by {@code RedisStore}'s static initialiser. */
    public static void install(Function<Object, RedisGateway> installed) {
        bridge = installed;
    }

    /**
     * The gateway a store decides through.
     *
     * @param store a {@code dev.ratelimit.RedisStore}
     */
    public static RedisGateway gateway(Object store) {
        // Holding a store means its class is initialised, so the bridge is in place.
        return bridge.apply(store);
    }
}
