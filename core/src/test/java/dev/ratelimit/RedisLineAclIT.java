package dev.ratelimit;

import dev.ratelimit.testing.RedisLine;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.RunsOnItsLine;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RedisAclContract} on the server line the build names ({@link RedisLine}): Redis 6.2 from the
 * embedded-redis jar, the oldest Redis README promises, whose ACL and script errors differ from 7's;
 * {@code .ci/run} runs it again on Valkey 8, Valkey 9 and Redis 8.
 */
class RedisLineAclIT extends RedisAclContract implements RunsOnItsLine {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.line();

    @Override
    public RedisServerExtension redis() {
        return redis;
    }
}
