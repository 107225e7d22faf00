package dev.ratelimit;

import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerStrategy;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link EvictingRedisContract} on a Redis of this class's own (PATH, else the embedded binary),
 * never one named by REDIS_URL: the tests change its memory settings and restart it.
 */
class EvictingRedisIT extends EvictingRedisContract {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(ServerStrategy.PATH, ServerStrategy.EMBEDDED);

    @RegisterExtension
    static final AclUser noInfo = new AclUser(redis, "noinfo", "+@all", "-info");

    @Override
    RedisServerExtension redis() {
        return redis;
    }

    @Override
    AclUser noInfo() {
        return noInfo;
    }
}
