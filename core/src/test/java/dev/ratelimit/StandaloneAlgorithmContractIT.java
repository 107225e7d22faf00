package dev.ratelimit;

import dev.ratelimit.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The algorithm contract on the standalone Redis the build finds first (7.0 here: see RedisServerExtension). */
class StandaloneAlgorithmContractIT extends StandaloneAlgorithmContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisServerExtension redis() {
        return redis;
    }
}
