package dev.ratelimit.internal;

import dev.ratelimit.RedisStore;

/**
 * Lets the core's own packages ({@code counter}, {@code http}) and its tests reach the
 * {@link RedisGateway} inside a {@link RedisStore}, without the public API naming an internal
 * type. {@code RedisStore} installs the bridge when its class is initialised, as the JDK's
 * "shared secrets" do. Not for applications.
 */
public final class StoreAccess {
    /** What {@code RedisStore} offers its own library. */
    public interface Bridge {
        RedisGateway gateway(RedisStore store);

        RedisStore store(RedisGateway gateway);
    }

    private static volatile Bridge bridge;

    private StoreAccess() {
    }

    /** Called once, by {@code RedisStore}'s static initialiser. */
    public static void install(Bridge installed) {
        bridge = installed;
    }

    /** The gateway a store decides through. */
    public static RedisGateway gateway(RedisStore store) {
        return bridge().gateway(store);
    }

    /**
     * A store over a gateway the caller made (an in-memory fake in unit tests), with no circuit
     * breaker added: the gateway is used as it is.
     */
    public static RedisStore store(RedisGateway gateway) {
        return bridge().store(gateway);
    }

    private static Bridge bridge() {
        Bridge current = bridge;
        if (current == null) {
            try {
                // Initialising the class runs its static block, which installs the bridge.
                Class.forName(RedisStore.class.getName(), true, RedisStore.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("RedisStore is part of this jar", e);
            }
            current = bridge;
        }
        return current;
    }
}
