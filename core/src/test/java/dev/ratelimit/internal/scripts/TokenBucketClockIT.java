package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The token-bucket script at exact instants: the production script, sent the production arguments
 * plus the trailing {@code now} (microseconds) that it reads instead of Redis' TIME.
 *
 * <p>10 per 60 s with a burst of 5 counts in units of 1/6,000,000 of a permit, refilled one per
 * microsecond: a permit comes back every 6 s. Replies are {all_allowed, then per rule: allowed,
 * remaining, retry_after_us, reset_after_us}.
 */
class TokenBucketClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final Rule TEN_PER_MINUTE =
            Rule.builder(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(60)).burst(5).build();

    @Test
    void aFullBucketGivesItsBurstThenOnePermitPerRefillToTheMicrosecond() {
        String key = redis.key("burst");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 4L, 0L, 6_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("24,000,000 units counted at T0").isEqualTo("t24000000 " + T0);
        assertThat(script.consume(T0, 4, key)).as("the rest of the burst; full again in 30 s")
                .containsExactly(1L, 1L, 0L, 0L, 30_000_000L);

        assertThat(script.consume(T0, 1, key)).as("empty: one permit refills in 6 s")
                .containsExactly(0L, 0L, 0L, 6_000_000L, 30_000_000L);
        assertThat(script.consume(T0 + 5_999_999, 1, key)).as("one microsecond before that, one unit short")
                .containsExactly(0L, 0L, 0L, 1L, 24_000_001L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("denials write nothing").isEqualTo("t0 " + T0);

        assertThat(script.consume(T0 + 6_000_000, 1, key)).as("exactly at the retry-after")
                .containsExactly(1L, 1L, 0L, 0L, 30_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("t0 " + (T0 + 6_000_000));
    }

    @Test
    void theRefillAfterAnExactElapsedTimeIsExactAndStopsAtTheBurst() {
        String key = redis.key("refill");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE);
        script.consume(T0, 5, key);

        assertThat(script.peek(T0 + 15_000_000, 1, key)).as("15 s refill 2.5 permits; full in another 15 s")
                .containsExactly(1L, 1L, 2L, 0L, 15_000_000L);
        assertThat(script.peek(T0 + 15_000_000, 3, key)).as("3 permits wait for the missing half")
                .containsExactly(0L, 0L, 2L, 3_000_000L, 15_000_000L);
        assertThat(script.peek(T0 + 29_999_999, 5, key)).as("one unit short of full")
                .containsExactly(0L, 0L, 4L, 1L, 1L);
        assertThat(script.peek(T0 + 30_000_000, 5, key)).containsExactly(1L, 1L, 5L, 0L, 0L);
        assertThat(script.peek(T0 + 3_600_000_000L, 5, key)).as("never more than the burst")
                .containsExactly(1L, 1L, 5L, 0L, 0L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).as("peeks write nothing").isEqualTo("t0 " + T0);

        assertThat(script.consume(T0 + 3_600_000_000L, 5, key)).containsExactly(1L, 1L, 0L, 0L, 30_000_000L);
    }

    @Test
    void aRateThatDoesNotDivideTheWindowStillRefillsInExactIntegerUnits() {
        // 3 per 10 s, burst 5: a permit is 10,000,000 units, 3 come back per microsecond, so a
        // permit takes 3,333,333.3 us and the retry-after rounds up, never early.
        String key = redis.key("thirds");
        FrozenClockScript script = new FrozenClockScript(redis.client(),
                Rule.builder(Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(10)).burst(5).build());
        assertThat(script.consume(T0, 5, key)).containsExactly(1L, 1L, 0L, 0L, 16_666_667L);
        assertThat(script.consume(T0, 1, key)).containsExactly(0L, 0L, 0L, 3_333_334L, 16_666_667L);
        assertThat(script.consume(T0 + 3_333_333, 1, key)).as("9,999,999 units: one short")
                .containsExactly(0L, 0L, 0L, 1L, 13_333_334L);
        assertThat(script.consume(T0 + 3_333_334, 1, key)).as("10,000,002 units: two left over")
                .containsExactly(1L, 1L, 0L, 0L, 16_666_666L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("t2 " + (T0 + 3_333_334));
        assertThat(script.consume(T0 + 3_333_334, 1, key)).as("the two units shorten the next wait")
                .containsExactly(0L, 0L, 0L, 3_333_333L, 16_666_666L);
        assertThat(script.consume(T0 + 6_666_667, 1, key)).as("10,000,001 units: one left over")
                .containsExactly(1L, 1L, 0L, 0L, 16_666_667L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(key))).isEqualTo("t1 " + (T0 + 6_666_667));
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String burst = redis.key("rules-burst");
        String steady = redis.key("rules-steady");
        // The second rule: 1 per 10 s, burst 2; a permit is 10,000,000 units, one back per microsecond.
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE,
                Rule.builder(Algorithm.TOKEN_BUCKET, 1, Duration.ofSeconds(10)).burst(2).name("steady").build());

        assertThat(script.consume(T0, 1, burst, steady))
                .containsExactly(1L, 1L, 4L, 0L, 6_000_000L, 1L, 1L, 0L, 10_000_000L);
        assertThat(script.consume(T0, 1, burst, steady))
                .containsExactly(1L, 1L, 3L, 0L, 12_000_000L, 1L, 0L, 0L, 20_000_000L);

        assertThat(script.consume(T0, 1, burst, steady)).as("the steady rule denies for both")
                .containsExactly(0L, 1L, 3L, 0L, 12_000_000L, 0L, 0L, 10_000_000L, 20_000_000L);
        assertThat(script.consume(T0 + 9_999_999, 1, burst, steady))
                .containsExactly(0L, 1L, 4L, 0L, 2_000_001L, 0L, 0L, 1L, 10_000_001L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(burst))).as("nothing taken from the rule that had tokens")
                .isEqualTo("t18000000 " + T0);

        assertThat(script.consume(T0 + 10_000_000, 1, burst, steady)).as("at the steady rule's retry-after")
                .containsExactly(1L, 1L, 3L, 0L, 8_000_000L, 1L, 0L, 0L, 20_000_000L);
        assertThat(FrozenClockScript.withoutLife(redis.client().get(burst))).isEqualTo("t22000000 " + (T0 + 10_000_000));
        assertThat(FrozenClockScript.withoutLife(redis.client().get(steady))).isEqualTo("t0 " + (T0 + 10_000_000));
    }

    @Test
    void withoutTheClockArgumentTheScriptCountsOnRedisTime() {
        String key = redis.key("redis-time");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TEN_PER_MINUTE);
        long before = redisMicros();
        assertThat(script.consumeOnRedisClock(1, key)).containsExactly(1L, 1L, 4L, 0L, 6_000_000L);
        long after = redisMicros();

        String[] state = redis.client().get(key).split(" ");
        assertThat(state[0]).isEqualTo("t24000000");
        assertThat(Long.parseLong(state[1])).as("stamped by TIME, not by anything the caller sent")
                .isBetween(before, after);
    }

    private static long redisMicros() {
        @SuppressWarnings("unchecked")
        List<byte[]> time = (List<byte[]>) redis.client().sendCommand(Protocol.Command.TIME);
        return Long.parseLong(SafeEncoder.encode(time.get(0))) * 1_000_000
                + Long.parseLong(SafeEncoder.encode(time.get(1)));
    }
}
