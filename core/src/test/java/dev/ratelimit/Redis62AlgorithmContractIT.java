package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.RedisServerExtension.Strategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The algorithm contract on Redis 6.2, the oldest Redis README promises: the binary of the
 * embedded-redis jar, whatever REDIS_URL, Docker or PATH would offer.
 */
class Redis62AlgorithmContractIT extends StandaloneAlgorithmContract {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(Strategy.EMBEDDED);

    @Override
    RedisServerExtension redis() {
        return redis;
    }

    /** Without this the suite could pass on another binary and prove nothing about 6.2. */
    @Test
    void runsOnRedis62() {
        assertThat(redis.serverVersion()).startsWith("6.2.");
    }
}
