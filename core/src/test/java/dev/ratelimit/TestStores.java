package dev.ratelimit;

import dev.ratelimit.internal.redis.RedisGateway;

/** Stores over a gateway a test made (an in-memory fake), for tests in every package. */
public final class TestStores {
    private TestStores() {
    }

    /** A store deciding through the gateway as it is, with no circuit breaker added. */
    public static RedisStore over(RedisGateway gateway) {
        return RedisStore.over(gateway);
    }
}
