package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;

/**
 * The fixed-window script at exact instants, 3 per 60 s unless said otherwise.
 *
 * <p>fixed-window calls no TIME: its clock is its key's expiry. A window is a counter that Redis
 * deletes when the window ends, and the script reads the time left from the key's PTTL. So there is
 * no {@code now} to inject (the script ignores a trailing one), and these tests move time by setting
 * the counter's remaining TTL instead of sleeping: SET and PEXPIRE of X ms put the clock X ms before
 * the end of a window holding that count, and a deleted key is the instant that window ended. PTTL
 * counts whole milliseconds, so the script's retry-after is (PTTL + 1) ms, the first instant the key
 * is certainly gone, and its resolution is the millisecond: the last instant a test can set is 1 ms
 * before the end (a TTL of 0 deletes the key).
 *
 * <p>Redis' millisecond clock may still tick between that PEXPIRE and the script's PTTL. So the
 * state is set, the script run, and the TTLs read back in one MULTI/EXEC, and the transaction (which
 * sets every key afresh) is repeated until the TTLs read back are the ones set: then no millisecond
 * passed and the script read exactly them. Nothing sleeps and nothing is timed.
 *
 * <p>Replies are {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
 */
class FixedWindowClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final int ATTEMPTS = 100;
    private static final Rule THREE_PER_MINUTE = Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(60));

    @Test
    void aWindowStartsAtItsFirstAdmissionAndItsRetryAfterIsWhenTheKeyIsGone() {
        String key = redis.key("window");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(script.consumeOnRedisClock(1, key)).as("a whole window from now")
                .containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
        assertThat(redis.client().pttl(key)).isBetween(1L, 60_000L);

        assertThat(run(script, script.args(true, 2), counter(key, 1, 45_000))).as("45 s before the window ends")
                .containsExactly(1L, 1L, 0L, 0L, 45_001_000L);
        assertThat(redis.client().get(key)).isEqualTo("3");

        assertThat(run(script, script.args(true, 1), counter(key, 3, 45_000)))
                .as("full: the key goes 45.001 s from now")
                .containsExactly(0L, 0L, 0L, 45_001_000L, 45_001_000L);
        assertThat(redis.client().get(key)).as("denials write nothing").isEqualTo("3");
        assertThat(run(script, script.args(true, 1), counter(key, 3, 1))).as("the last millisecond that can be set")
                .containsExactly(0L, 0L, 0L, 2_000L, 2_000L);

        assertThat(run(script, script.args(true, 1), gone(key))).as("once the key is gone: a new window")
                .containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
    }

    @Test
    void aTrailingClockArgumentIsIgnored() {
        String key = redis.key("ignored");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(script.consume(T0, 1, key)).containsExactly(1L, 1L, 2L, 0L, 60_000_000L);
        assertThat(redis.client().get(key)).isEqualTo("1");
        assertThat(run(script, script.args(true, 1, T0), counter(key, 2, 30_000)))
                .containsExactly(1L, 1L, 0L, 0L, 30_001_000L);
        assertThat(run(script, script.args(false, 1, T0), counter(key, 3, 30_000)))
                .containsExactly(0L, 0L, 0L, 30_001_000L, 30_001_000L);
    }

    @Test
    void aPeekReportsTheWindowAndCountsNothing() {
        String key = redis.key("peek");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE);
        assertThat(run(script, script.args(false, 1), gone(key))).containsExactly(1L, 1L, 3L, 0L, 0L);
        assertThat(redis.client().exists(key)).isFalse();

        assertThat(run(script, script.args(false, 1), counter(key, 2, 30_000)))
                .containsExactly(1L, 1L, 1L, 0L, 30_001_000L);
        assertThat(run(script, script.args(false, 2), counter(key, 2, 30_000)))
                .containsExactly(0L, 0L, 1L, 30_001_000L, 30_001_000L);
        assertThat(redis.client().get(key)).isEqualTo("2");
    }

    @Test
    void twoRulesAdmitTogetherOrNotAtAll() {
        String wide = redis.key("rules-wide");
        String narrow = redis.key("rules-narrow");
        FrozenClockScript script = new FrozenClockScript(redis.client(), THREE_PER_MINUTE,
                Rule.builder(Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(20)).name("narrow").build());

        assertThat(run(script, script.args(true, 1), counter(wide, 1, 50_000), counter(narrow, 1, 20_000)))
                .as("the narrow rule denies for both")
                .containsExactly(0L, 1L, 2L, 0L, 50_001_000L, 0L, 0L, 20_001_000L, 20_001_000L);
        assertThat(redis.client().get(wide)).as("nothing counted for the rule that had room").isEqualTo("1");

        assertThat(run(script, script.args(true, 1), counter(wide, 1, 50_000), gone(narrow)))
                .as("once its window is over")
                .containsExactly(1L, 1L, 1L, 0L, 50_001_000L, 1L, 0L, 0L, 20_000_000L);
        assertThat(redis.client().get(wide)).isEqualTo("2");
        assertThat(redis.client().get(narrow)).isEqualTo("1");
    }

    /** A key's state before a call: a counter with {@code ttlMillis} left, or no key ({@code count < 0}). */
    private static final class Counter {
        final String key;
        final long count;
        final long ttlMillis;

        Counter(String key, long count, long ttlMillis) {
            this.key = key;
            this.count = count;
            this.ttlMillis = ttlMillis;
        }
    }

    private static Counter counter(String key, long count, long ttlMillis) {
        return new Counter(key, count, ttlMillis);
    }

    private static Counter gone(String key) {
        return new Counter(key, -1, 0);
    }

    /**
     * Sets every key to its state and runs the script with {@code args} (production's: {@link
     * FrozenClockScript#args(boolean, long)}), in one MULTI/EXEC, until the TTLs read back at its
     * end are those set (see the class comment).
     */
    private static List<Long> run(FrozenClockScript script, List<String> args, Counter... counters) {
        List<String> keys = new ArrayList<>();
        for (Counter counter : counters) {
            keys.add(counter.key);
        }
        List<Long> lastTtls = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Response<Object> reply;
            List<Response<Long>> ttls = new ArrayList<>();
            try (AbstractTransaction tx = redis.client().multi()) {
                for (Counter counter : counters) {
                    if (counter.count < 0) {
                        tx.del(counter.key);
                    } else {
                        tx.set(counter.key, Long.toString(counter.count));
                        tx.pexpire(counter.key, counter.ttlMillis);
                    }
                }
                reply = tx.evalsha(script.sha1(), keys, args);
                for (Counter counter : counters) {
                    ttls.add(tx.pttl(counter.key));
                }
                tx.exec();
            }
            lastTtls = new ArrayList<>();
            boolean sameMillisecond = true;
            for (int i = 0; i < counters.length; i++) {
                long ttl = ttls.get(i).get();
                lastTtls.add(ttl);
                if (counters[i].count >= 0 && ttl != counters[i].ttlMillis) {
                    sameMillisecond = false;
                }
            }
            if (sameMillisecond) {
                @SuppressWarnings("unchecked")
                List<Long> values = (List<Long>) reply.get();
                // An admission's receipts (the window's end, for refund.lua) follow; RefundClockIT checks them.
                return values.subList(0, Math.min(values.size(), 1 + 4 * counters.length));
            }
        }
        throw new AssertionError("Redis' millisecond changed within each of " + ATTEMPTS
                + " transactions (or the script changed a TTL); last TTLs read back: " + lastTtls);
    }
}
