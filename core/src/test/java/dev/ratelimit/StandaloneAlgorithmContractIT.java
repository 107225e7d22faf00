package dev.ratelimit;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** The algorithm contract on a standalone Redis. */
class StandaloneAlgorithmContractIT extends AlgorithmContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisSettings settings() {
        return RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(2)).build();
    }

    @Override
    String keyPrefix() {
        return redis.keyPrefix();
    }

    @Override
    UnifiedJedis admin() {
        return redis.client();
    }

    @Override
    List<String> allKeys() {
        return redis.keys();
    }

    @Override
    void flushScripts() {
        redis.client().scriptFlush();
    }
}
