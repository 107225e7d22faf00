package dev.ratelimit;

import dev.ratelimit.internal.redis.RedisGateway;

/** Lets the kit's tests build a store over a gateway of their own (the parity test's mirror of real Redis). */
public final class StoresForTests {
    private StoresForTests() {
    }

    public static RedisStore over(RedisGateway gateway) {
        return RedisStore.over(gateway);
    }
}
