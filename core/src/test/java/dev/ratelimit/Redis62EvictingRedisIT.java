package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.RedisServerExtension.Strategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link EvictingRedisContract} on Redis 6.2, the oldest README promises, which takes one section
 * per INFO: the binary of the embedded-redis jar, whatever REDIS_URL, Docker or PATH would offer.
 */
class Redis62EvictingRedisIT extends EvictingRedisContract {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(Strategy.EMBEDDED);

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

    /** Without this the suite could pass on another binary and prove nothing about 6.2. */
    @Test
    void runsOnRedis62() {
        assertThat(redis.serverVersion()).startsWith("6.2.");
        assertThat(server()).as("as the limiter must name it").startsWith("Redis 6.2.");
    }
}
