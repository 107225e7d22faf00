package dev.ratelimit;

import dev.ratelimit.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RedisOutageContract} on the Redis the build finds first (7.0 here: see RedisServerExtension). */
class RedisOutageIT extends RedisOutageContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisServerExtension redis() {
        return redis;
    }
}
