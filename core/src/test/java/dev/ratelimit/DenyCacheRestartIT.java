package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.engine.LiveOverrides;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 48, item 9: a node's deny cache after a restart of a Redis that keeps nothing on disk (the
 * test server runs without persistence). The cache promises never to deny what Redis would admit;
 * after the restart Redis admits the client afresh, and the cache, which held a minute's denial,
 * forgets it at the node's next read of the overrides (at most 2 s later, the node's clock, or the
 * decision after, when that read met a connection from before the restart): that read makes a new
 * client-reset mark where the restart lost the old one, and a new mark empties every node's cache,
 * as a reset does. Before, it refused until the cached retry-after.
 */
class DenyCacheRestartIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aRestartThatLostTheDataEmptiesTheDenyCacheAtTheNextOverridesRead(Transport transport) {
        AtomicLong clock = new AtomicLong();
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(2))
                .build())) {
            RateLimiter node = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("cached-" + transport)
                    .transport(transport).clock(clock::get).onRedisFailure(FailurePolicy.DENY)
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1))).build();
            assertThat(node.tryAcquire("client").allowed()).isTrue();
            Decision denied = node.tryAcquire("client");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.retryAfter()).as("a minute's denial, remembered").isGreaterThan(Duration.ofSeconds(50));
            long cacheDenials = node.stats().localCacheDenials();
            assertThat(node.tryAcquire("client").allowed()).isFalse();
            assertThat(node.stats().localCacheDenials()).as("answered by the cache").isEqualTo(cacheDenials + 1);

            redis.stop();
            redis.start();
            clock.addAndGet(LiveOverrides.REFRESH_INTERVAL.toNanos());

            // The first call after the restart may meet a connection from before it and fail (the
            // overrides read or the decision); the node then reads again at its next decision.
            Decision after = node.tryAcquire("client");
            for (int tries = 0; !after.allowed() && tries < 3; tries++) {
                after = node.tryAcquire("client");
            }
            assertThat(after.allowed()).as("Redis forgot the client, and so did the cache: " + after).isTrue();
            assertThat(after.degraded()).isFalse();
            assertThat(node.stats().localCacheDenials()).as("from the cache after the restart: at most the decision "
                    + "whose overrides read met a connection from before it").isLessThanOrEqualTo(cacheDenials + 2);
        }
    }
}
