package dev.ratelimit.servlet;

import dev.ratelimit.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RateLimitFilterNodesContract} on the Redis the build finds first (7.0 here: see RedisServerExtension). */
class RateLimitFilterNodesIT extends RateLimitFilterNodesContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisServerExtension redis() {
        return redis;
    }
}
