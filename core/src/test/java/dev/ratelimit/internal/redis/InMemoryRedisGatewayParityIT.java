package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fake answers as real Redis running the production scripts does, for the same calls: so the
 * unit tests built on {@link InMemoryRedisGateway} rest on Redis' behaviour, not on a guess. Windows
 * are an hour long and the fake's clock stands still, so nothing expires; times are compared only
 * where they cannot depend on Redis' clock (zero, or a whole new window), and otherwise only in the
 * direction time moves (Redis' waits are never longer than the fake's).
 */
class InMemoryRedisGatewayParityIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final LuaScript FIXED_WINDOW = LuaEvaluator.script(Algorithm.FIXED_WINDOW);
    private static final long HOUR_MICROS = 3_600_000_000L;
    private static final long HOUR_MILLIS = 3_600_000L;

    private final InMemoryRedisGateway fake = new InMemoryRedisGateway();
    private final JedisGateway real = new JedisGateway(redis.client(), "the test's Redis");

    /** Runs one eval on both with the same keys and arguments (limits per key, window an hour). */
    private void evalBoth(String consume, long permits, String[] names, long... limits) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of(consume));
        for (int i = 0; i < names.length; i++) {
            keys.add(redis.key(names[i]));
            args.add(Long.toString(permits));
            args.add(Long.toString(limits[i]));
            args.add(Long.toString(HOUR_MICROS));
        }
        List<Long> expected = fake.eval(FIXED_WINDOW, keys, args);
        List<Long> reply = real.eval(FIXED_WINDOW, keys, args);
        // The fake leaves out an admission's receipts (it models no refunds); they follow the decision.
        List<Long> actual = reply.subList(0, Math.min(reply.size(), 1 + 4 * names.length));
        String step = "consume=" + consume + " permits=" + permits + " keys=" + List.of(names) + ": fake " + expected
                + ", Redis " + actual;
        assertThat(actual).as(step).hasSameSizeAs(expected);
        assertThat(actual.get(0)).as(step + " all_allowed").isEqualTo(expected.get(0));
        for (int at = 1; at < expected.size(); at += 4) {
            assertThat(actual.get(at)).as(step + " allowed").isEqualTo(expected.get(at));
            assertThat(actual.get(at + 1)).as(step + " remaining").isEqualTo(expected.get(at + 1));
            sameTime(step + " retry_after_us", expected.get(at + 2), actual.get(at + 2));
            sameTime(step + " reset_after_us", expected.get(at + 3), actual.get(at + 3));
        }
    }

    private static void sameTime(String what, long fake, long real) {
        if (fake == 0 || fake == HOUR_MICROS) {
            assertThat(real).as(what).isEqualTo(fake);
        } else {
            assertThat(real).as(what).isPositive().isLessThanOrEqualTo(fake);
        }
    }

    @Test
    void oneRuleAnswersAlike() {
        String[] a = {"parity-one"};
        evalBoth("1", 1, a, 3);
        evalBoth("1", 1, a, 3);
        evalBoth("0", 1, a, 3);
        evalBoth("1", 2, a, 3);
        evalBoth("1", 1, a, 3);
        evalBoth("1", 1, a, 3);
        evalBoth("0", 1, a, 3);
        evalBoth("1", 5, new String[] {"parity-too-many"}, 3);
        evalBoth("0", 1, new String[] {"parity-absent"}, 3);
    }

    @Test
    void severalRulesAreAllOrNothingAlike() {
        String[] both = {"{parity}:short", "{parity}:long"};
        evalBoth("1", 2, both, 2, 5);
        evalBoth("1", 1, both, 2, 5);
        evalBoth("0", 1, both, 2, 5);
        evalBoth("1", 1, new String[] {"{parity}:long"}, 5);
        evalBoth("1", 3, both, 9, 5);
        evalBoth("1", 2, both, 9, 5);
    }

    @Test
    void transactionCallsAnswerAlike() {
        String key = redis.key("parity-transaction");
        assertThat(real.readWindow(key)).containsExactly(fake.readWindow(key));
        for (long permits : new long[] {2, 3}) {
            long[] expected = fake.incrementInWindow(key, permits, HOUR_MILLIS);
            long[] actual = real.incrementInWindow(key, permits, HOUR_MILLIS);
            assertThat(actual[0]).isEqualTo(expected[0]);
            assertThat(actual[1]).isBetween(0L, expected[1]);
        }
        long[] read = real.readWindow(key);
        assertThat(read[0]).isEqualTo(fake.readWindow(key)[0]).isEqualTo(5);
        real.delete(List.of(key));
        fake.delete(List.of(key));
        assertThat(real.readWindow(key)).containsExactly(fake.readWindow(key)).containsExactly(0, -2);
    }
}
