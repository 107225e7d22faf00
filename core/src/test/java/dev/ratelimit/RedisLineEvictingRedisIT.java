package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisLine;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.RunsOnItsLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link EvictingRedisContract} on the server line the build names ({@link RedisLine}): Redis 6.2 from the
 * embedded-redis jar, the oldest Redis README promises, whatever REDIS_URL, Docker or PATH would
 * offer; {@code .ci/run} runs it again on Valkey 8, Valkey 9 and Redis 8.
 * The eviction reading sends one section per INFO: 6.2 takes no more.
 */
class RedisLineEvictingRedisIT extends EvictingRedisContract implements RunsOnItsLine {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.line();

    @RegisterExtension
    static final AclUser noInfo = new AclUser(redis, "noinfo", "+@all", "-info");

    @Override
    public RedisServerExtension redis() {
        return redis;
    }

    @Override
    AclUser noInfo() {
        return noInfo;
    }

    /** The names the contract expects of the limiter are this line's: Valkey as Valkey, with its own version. */
    @Test
    void theContractExpectsTheLinesOwnName() {
        assertThat(server()).isEqualToIgnoringCase(redis.serverProduct());
    }
}
