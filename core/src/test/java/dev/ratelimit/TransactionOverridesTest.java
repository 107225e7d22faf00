package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import dev.ratelimit.internal.redis.InMemoryRedisGateway.Call;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Live overrides of a limiter under {@code transport=transaction}, over the in-memory gateway: set,
 * applied at once, cleared, without one script call; a failed write changes nothing. Against a real
 * Redis user without scripts: RedisRefusalIT.
 */
class TransactionOverridesTest {
    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();

    private RateLimiter limiter(Algorithm algorithm) {
        return RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime).transport(Transport.TRANSACTION)
                .localDenyCache(false).rule(Rule.of(algorithm, 10, Duration.ofMinutes(1))).build();
    }

    private static int admitted(RateLimiter limiter, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void anOverrideIsSetAppliedAndClearedWithoutAScript() {
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW);
        limiter.overrides().setLimit(3, "ops");

        assertThat(admitted(limiter, "a", 20)).isEqualTo(3);
        assertThat(limiter.tryAcquire("a").limit()).isEqualTo(3);
        assertThat(limiter.overrides().origin()).isEqualTo("ops");
        limiter.overrides().setEnforce(false, "ops");
        assertThat(limiter.overrides().enforce(true)).isFalse();

        limiter.overrides().clear("ops");
        assertThat(admitted(limiter, "b", 20)).isEqualTo(10);
        assertThat(limiter.overrides().limit()).isEqualTo(-1);
        assertThat(limiter.overrides().enforce()).isNull();
        assertThat(redis.calls(Call.EVAL)).as("no script, ever").isZero();
        assertThat(redis.calls(Call.HASH_WRITE)).as("one round trip per change").isEqualTo(3);
    }

    @Test
    void anotherNodePicksTheOverrideUpAfterTheInterval() {
        RateLimiter a = limiter(Algorithm.FIXED_WINDOW);
        RateLimiter b = limiter(Algorithm.FIXED_WINDOW);
        b.tryAcquire("warm-up");
        a.overrides().setLimit(2, "node a");

        assertThat(admitted(b, "c", 20)).as("within b's interval").isEqualTo(10);
        redis.advance(Overrides.REFRESH_INTERVAL);
        assertThat(admitted(b, "d", 20)).isEqualTo(2);
        assertThat(b.overrides().origin()).isEqualTo("node a");
    }

    @Test
    void aFailedWriteChangesNothing() {
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW);
        limiter.overrides().setLimit(4, "ops");
        redis.failNextWithErrorReply(1);

        assertThatThrownBy(() -> limiter.overrides().setLimit(2, "ops")).isInstanceOf(RedisFailureException.class);

        assertThat(limiter.overrides().limit()).isEqualTo(4);
        assertThat(admitted(limiter, "c", 20)).isEqualTo(4);
    }
}
