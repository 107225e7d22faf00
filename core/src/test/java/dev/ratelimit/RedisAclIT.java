package dev.ratelimit;

import dev.ratelimit.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RedisAclContract} on the server the build finds (Redis 7.0 here). */
class RedisAclIT extends RedisAclContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    public RedisServerExtension redis() {
        return redis;
    }
}
