package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redis.InMemoryRedisGateway.Call;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fake's own behaviour, so that the tests built on it rest on something checked: the
 * fixed-window reply layout of fixed-window.lua and limiter-driver.lua, Redis' expiry boundary,
 * and the fault injection.
 */
class InMemoryRedisGatewayTest {
    private static final LuaScript FIXED_WINDOW = LuaEvaluator.script(Algorithm.FIXED_WINDOW);

    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();

    /** Limit 2 per second for {@code a}, 3 per 10 seconds for {@code b}. */
    private List<Long> both(String consume, long permits) {
        return redis.eval(FIXED_WINDOW, List.of("a", "b"),
                List.of(consume, Long.toString(permits), "2", "1000000", Long.toString(permits), "3", "10000000"));
    }

    private List<Long> one(String consume, long permits) {
        return redis.eval(FIXED_WINDOW, List.of("a"), List.of(consume, Long.toString(permits), "2", "1000000"));
    }

    @Test
    void aWindowStartsWithTheFirstAdmissionAndEndsPastItsLastMillisecond() {
        assertThat(one("1", 1)).as("new window: reset is the whole window").containsExactly(1L, 1L, 1L, 0L, 1_000_000L);
        redis.advance(Duration.ofMillis(300));
        assertThat(one("1", 1)).containsExactly(1L, 1L, 0L, 0L, 701_000L);
        assertThat(one("1", 1)).as("denied: retry when the key is certainly gone")
                .containsExactly(0L, 0L, 0L, 701_000L, 701_000L);
        assertThat(redis.count("a")).isEqualTo(2);

        redis.advance(Duration.ofMillis(701).minusNanos(1));
        assertThat(one("0", 1)).as("PTTL 0: still there").containsExactly(0L, 0L, 0L, 1_000L, 1_000L);
        redis.advance(Duration.ofNanos(1));
        assertThat(one("0", 1)).as("a peek writes nothing").containsExactly(1L, 1L, 2L, 0L, 0L);
        assertThat(redis.count("a")).isZero();
    }

    @Test
    void severalRulesAreAllOrNothing() {
        assertThat(both("1", 2)).containsExactly(1L, 1L, 0L, 0L, 1_000_000L, 1L, 1L, 0L, 10_000_000L);
        redis.advance(Duration.ofMillis(1001));

        assertThat(both("1", 2)).as("a allows, b denies: nothing is taken")
                .containsExactly(0L, 1L, 2L, 0L, 0L, 0L, 1L, 9_000_000L, 9_000_000L);
        assertThat(redis.count("a")).isZero();
        assertThat(redis.count("b")).isEqualTo(2);

        assertThat(both("1", 1)).containsExactly(1L, 1L, 1L, 0L, 1_000_000L, 1L, 0L, 0L, 9_000_000L);
    }

    @Test
    void theTransactionCallsCountAndReadAWindow() {
        assertThat(redis.readWindow("k")).containsExactly(0, -2);
        assertThat(redis.incrementInWindow("k", 2, 1000)).containsExactly(2, 1000);
        redis.advance(Duration.ofMillis(400));
        assertThat(redis.incrementInWindow("k", 5, 1000)).as("the TTL is kept").containsExactly(7, 600);
        assertThat(redis.readWindow("k")).containsExactly(7, 600);
        redis.delete(List.of("k"));
        assertThat(redis.readWindow("k")).containsExactly(0, -2);
        assertThat(redis.calls(Call.INCREMENT_IN_WINDOW)).isEqualTo(2);
        assertThat(redis.calls(Call.READ_WINDOW)).isEqualTo(3);
        assertThat(redis.calls(Call.DELETE)).isEqualTo(1);
        assertThat(redis.calls(Call.EVAL)).isZero();
    }

    @Test
    void anotherScriptFailsLoudly() {
        assertThatThrownBy(() -> redis.eval(LuaEvaluator.script(Algorithm.GCRA), List.of("a"),
                List.of("1", "1", "100000", "1")))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("gcra.lua");
        assertThatThrownBy(() -> redis.eval(FIXED_WINDOW, List.of("a"), List.of("1", "1", "2")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void injectedFailuresWriteNothingAndAreCounted() {
        redis.failNext(2);
        assertThatThrownBy(() -> one("1", 1)).isInstanceOfSatisfying(RedisFailureException.class,
                e -> assertThat(e.redisAnswered()).isFalse());
        assertThatThrownBy(() -> redis.incrementInWindow("a", 1, 1000)).isInstanceOf(RedisFailureException.class);
        assertThat(one("1", 1).get(0)).isEqualTo(1L);

        redis.failNextWithErrorReply(1);
        assertThatThrownBy(() -> one("1", 1)).isInstanceOfSatisfying(RedisFailureException.class,
                e -> assertThat(e.redisAnswered()).isTrue());

        redis.failAll();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> redis.readWindow("a")).isInstanceOf(RedisFailureException.class);
        }
        redis.recover();

        assertThat(redis.count("a")).as("only the one answered call counted").isEqualTo(1);
        assertThat(redis.calls(Call.EVAL)).isEqualTo(3);
        assertThat(redis.calls()).isEqualTo(7);
        assertThat(redis.closed()).isFalse();
        redis.close();
        assertThat(redis.closed()).isTrue();
        assertThatThrownBy(() -> redis.readWindow("a")).isInstanceOf(IllegalStateException.class);
    }
}
