package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.JedisGateway;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The concurrency script at exact instants: acquires, denials, releases and lease expiry, with
 * the clock given as the trailing {@code now} (after the lease id), 2 in flight with a 10 s lease
 * timeout. Replies are {all_allowed, allowed, remaining, retry_after_us, reset_after_us}.
 */
class ConcurrencyClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long S = 1_000_000L;
    private static final Rule TWO_IN_FLIGHT = Rule.of(Algorithm.CONCURRENCY, 2, Duration.ofSeconds(10));

    @Test
    void leasesAreTakenUntilTheLimitAndADenialWritesNothing() {
        String key = redis.key("take");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);

        assertThat(acquire(script, key, "lease:a", T0)).containsExactly(1L, 1L, 1L, 0L, 10 * S);
        assertThat(score(key, "lease:a")).isEqualTo(T0 + 10 * S);
        assertThat(acquire(script, key, "lease:b", T0 + S)).as("reset: the longest lease")
                .containsExactly(1L, 1L, 0L, 0L, 10 * S);
        assertThat(acquire(script, key, "lease:c", T0 + 2 * S))
                .as("full: retry when the earliest lease expires, 8 s on; reset when the last does, 9 s on")
                .containsExactly(0L, 0L, 0L, 8 * S, 9 * S);
        assertThat(redis.client().zrange(key, 0, -1)).as("a denial writes nothing")
                .containsExactly("lease:a", "lease:b");
        assertThat(redis.client().pttl(key)).as("the TTL covers the longest lease").isBetween(1L, 10_000L);
    }

    @Test
    void aReleaseFreesAPlaceAtOnceAndIsIdempotent() {
        String key = redis.key("release");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);
        acquire(script, key, "lease:a", T0);
        acquire(script, key, "lease:b", T0 + S);

        assertThat(release(key, "lease:a")).isEqualTo(1L);
        assertThat(release(key, "lease:a")).as("a second release removes nothing").isEqualTo(0L);
        assertThat(release(key, "lease:never")).isEqualTo(0L);
        assertThat(acquire(script, key, "lease:c", T0 + 2 * S)).as("the place lease:a held")
                .containsExactly(1L, 1L, 0L, 0L, 10 * S);

        release(key, "lease:b");
        release(key, "lease:c");
        assertThat(redis.client().exists(key)).as("the last release empties the set; Redis deletes it").isFalse();
    }

    @Test
    void retryAfterIsTheEarliestExpiryButAtLeastOneSecond() {
        String key = redis.key("retry");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);
        acquire(script, key, "lease:a", T0);
        acquire(script, key, "lease:b", T0 + S);

        assertThat(acquire(script, key, "lease:c", T0 + 9_600_000L)).as("0.4 s before lease:a expires: 1 s")
                .containsExactly(0L, 0L, 0L, S, 1_400_000L);
        assertThat(acquire(script, key, "lease:c", T0 + 10 * S - 1)).as("1 µs before: still 1 s")
                .containsExactly(0L, 0L, 0L, S, S + 1);
        assertThat(acquire(script, key, "lease:c", T0 + 5 * S)).as("later than 1 s: the expiry itself")
                .containsExactly(0L, 0L, 0L, 5 * S, 6 * S);
    }

    @Test
    void anExpiredLeaseNoLongerCountsAndIsDroppedByTheNextAcquire() {
        String key = redis.key("expiry");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);
        acquire(script, key, "lease:a", T0);
        acquire(script, key, "lease:b", T0 + S);

        assertThat(acquire(script, key, "lease:c", T0 + 10 * S)).as("lease:a expires at exactly T0 + 10 s")
                .containsExactly(1L, 1L, 0L, 0L, 10 * S);
        assertThat(redis.client().zrange(key, 0, -1)).containsExactly("lease:b", "lease:c");
        assertThat(acquire(script, key, "lease:d", T0 + 30 * S)).as("every lease expired: a fresh start")
                .containsExactly(1L, 1L, 1L, 0L, 10 * S);
        assertThat(redis.client().zrange(key, 0, -1)).containsExactly("lease:d");
    }

    @Test
    void aPeekReportsLeasesHeldAndWritesNothing() {
        String key = redis.key("peek");
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);
        assertThat(run(script, false, key, "", T0)).containsExactly(1L, 1L, 2L, 0L, 0L);
        assertThat(redis.client().exists(key)).isFalse();
        acquire(script, key, "lease:a", T0);
        acquire(script, key, "lease:b", T0);
        assertThat(run(script, false, key, "", T0 + S)).containsExactly(0L, 0L, 0L, 9 * S, 9 * S);
        assertThat(redis.client().zcard(key)).isEqualTo(2L);
    }

    @Test
    void anotherAlgorithmsStateIsReplaced() {
        FrozenClockScript script = new FrozenClockScript(redis.client(), TWO_IN_FLIGHT);
        String counter = redis.key("foreign-counter");
        redis.client().set(counter, "7");
        assertThat(acquire(script, counter, "lease:a", T0)).containsExactly(1L, 1L, 1L, 0L, 10 * S);
        assertThat(redis.client().zrange(counter, 0, -1)).containsExactly("lease:a");

        String log = redis.key("foreign-log");
        // sliding-log's sorted set: totals scored by admission time, here in the future.
        redis.client().zadd(log, T0 + 5 * S, "1");
        redis.client().zadd(log, T0 + 6 * S, "2");
        assertThat(acquire(script, log, "lease:a", T0)).containsExactly(1L, 1L, 1L, 0L, 10 * S);
        assertThat(redis.client().zrange(log, 0, -1)).containsExactly("lease:a");
    }

    private static List<Long> acquire(FrozenClockScript script, String key, String lease, long now) {
        return run(script, true, key, lease, now);
    }

    /** What LuaEvaluator sends for a leasing rule: the rules' arguments, the lease, then the clock. */
    private static List<Long> run(FrozenClockScript script, boolean consume, String key, String lease, long now) {
        List<String> args = script.args(consume, 1);
        args.add(lease);
        args.add(Long.toString(now));
        return script.run(args, key);
    }

    /** Through production's release script and gateway. */
    private static long release(String key, String lease) {
        try (JedisGateway gateway = new JedisGateway(redis.client(), "test")) {
            return LuaEvaluator.release(gateway, List.of(key), lease);
        }
    }

    private static long score(String key, String member) {
        return redis.client().zscore(key, member).longValue();
    }
}
