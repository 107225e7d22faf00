package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transaction transport through a caller's own Jedis client ({@link RedisStore#wrap}), whose
 * transactions run each read before MULTI on its own: the sliding log stays exact across threads,
 * and a denial leaves the log as it was.
 */
class WrappedStoreTransactionIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aSlidingLogThroughAWrappedClientAdmitsExactlyTheLimit() throws Exception {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 25, Duration.ofHours(1));
        try (RedisStore store = RedisStore.wrap(redis.client())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("wrapped")
                    .transport(Transport.TRANSACTION).localDenyCache(false).rule(rule).build();

            int admitted = AlgorithmContract.hammer(120, 8, i -> limiter.tryAcquire("c").allowed());

            assertThat(admitted).isEqualTo(25);
            String key = limiter.redisKeys("c").get(0);
            byte[] before = redis.client().dump(key);
            Decision denied = limiter.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.remaining()).isZero();
            assertThat(denied.retryAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
            assertThat(redis.client().dump(key)).as("a denial writes nothing").isEqualTo(before);
            assertThat(redis.client().pttl(key)).as("the log expires").isPositive();
            assertThat(limiter.peek("c").remaining()).isZero();
        }
    }
}
