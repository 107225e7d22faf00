package dev.ratelimit.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.FrozenClockScript;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The local limiter is the scripts' algorithm: the same random schedule of requests (various
 * permits, peeks, pauses of microseconds to windows), run through the production script at frozen
 * instants and through {@link LocalLimiter} on a manual clock, gets the same reply, slot for slot,
 * for one rule and for two. fixed-window is left out: its script's clock is its key's TTL in
 * milliseconds, not an instant a test can freeze (LocalLimiterTest checks it exactly).
 */
class LocalLimiterParityIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** A multiple of every window used, so sliding-window's windows line up with the local clock's. */
    private static final long T0 = 1_699_999_980_000_000L;
    private static final long[] PAUSES_MICROS = {0, 1, 999, 250_000, 1_000_000, 3_000_000, 10_000_000, 61_000_000};

    private static List<Rule> rules(Algorithm algorithm, int count) {
        List<Rule> rules = new ArrayList<>();
        Rule.Builder first = Rule.builder(algorithm, 7, Duration.ofSeconds(10)).name("a");
        Rule.Builder second = Rule.builder(algorithm, 12, Duration.ofMinutes(1)).name("b");
        if (algorithm.usesBurst()) {
            first.burst(5);
            second.burst(9);
        }
        rules.add(first.build());
        if (count > 1) {
            rules.add(second.build());
        }
        return rules;
    }

    @ParameterizedTest
    // concurrency has no local twin: onRedisFailure=local refuses it (ConcurrencyIT).
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "CONCURRENCY"}, mode = EnumSource.Mode.EXCLUDE)
    void aRandomScheduleGetsTheScriptsRepliesSlotForSlot(Algorithm algorithm) {
        for (int ruleCount = 1; ruleCount <= 2; ruleCount++) {
            List<Rule> rules = rules(algorithm, ruleCount);
            FrozenClockScript script = new FrozenClockScript(redis.client(), rules.toArray(new Rule[0]));
            AtomicLong nanos = new AtomicLong(123_456_789L);
            LocalLimiter local = new LocalLimiter(rules, 100, nanos::get, System::currentTimeMillis);
            String[] keys = new String[ruleCount];
            for (int i = 0; i < ruleCount; i++) {
                keys[i] = redis.key("parity-" + algorithm + "-" + ruleCount + ":" + i);
            }
            Random random = new Random(42 + ruleCount);
            long now = 0;
            for (int step = 0; step < 400; step++) {
                now += PAUSES_MICROS[random.nextInt(PAUSES_MICROS.length)];
                nanos.set(123_456_789L + now * 1000 + random.nextInt(1000));
                long permits = 1 + random.nextInt(random.nextInt(4) == 0 ? 5 : 2);
                boolean consume = random.nextInt(5) != 0;
                List<Long> expected = consume ? script.consume(T0 + now, permits, keys)
                        : script.peek(T0 + now, permits, keys);
                long[] eachRule = new long[ruleCount];
                java.util.Arrays.fill(eachRule, permits);
                long[] actual = local.evaluate("c", eachRule, consume);
                List<Long> actualList = new ArrayList<>();
                for (long value : actual) {
                    actualList.add(value);
                }
                assertThat(actualList).as("%s, %d rules, step %d at %d us, %d permits, %s", algorithm, ruleCount,
                        step, now, permits, consume ? "consume" : "peek").isEqualTo(expected);
            }
        }
    }
}
