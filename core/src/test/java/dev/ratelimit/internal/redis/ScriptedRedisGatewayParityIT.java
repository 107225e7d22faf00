package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RealRedisStep;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scripted gateway answers as real Redis running the same production scripts does: for each
 * of the six rate algorithms' scripts, {@code refund.lua} and {@code overrides.lua}, the same
 * calls (decisions, peeks, leases {@code L<ask>:<lifetime_us>}, refunds of admissions and of lease
 * rests, another algorithm's state under the key, time passing across windows and expiries) give
 * the same replies and leave the same values and TTLs, to the millisecond.
 *
 * <p>Exact and sleep-free: before each call, real Redis is given the scripted gateway's state of
 * the call's keys (values and remaining TTLs), runs the call with the scripts' trailing clock ARGV
 * set to the instant the scripted gateway's {@code TIME} answers, and is read back, all in one
 * MULTI/EXEC bracketed by TIME; a transaction in which Redis' millisecond changed is run again
 * ({@link RealRedisStep}). The scripted gateway runs the same call without the clock ARGV, reading
 * its own {@code TIME}. Instants where a key would be at its very last millisecond (PTTL 0, which
 * no PEXPIRE can set) are stepped over by a millisecond.
 */
class ScriptedRedisGatewayParityIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final LuaScript REFUND = LuaScript.load("refund");
    private static final LuaScript OVERRIDES = LuaScript.load("overrides");
    private static final Duration[] STEPS = {Duration.ZERO, Duration.ofNanos(1_000), Duration.ofNanos(999_000),
        Duration.ofMillis(1), Duration.ofMillis(37), Duration.ofMillis(250), Duration.ofSeconds(1),
        Duration.ofMillis(1999), Duration.ofSeconds(2), Duration.ofMillis(2001), Duration.ofSeconds(5)};

    private final ScriptedRedisGateway fake = new ScriptedRedisGateway();
    private final RealRedisStep real = new RealRedisStep(redis.client());
    private final List<String> log = new ArrayList<>();

    static Rule rule(Algorithm algorithm) {
        Duration window = Duration.ofSeconds(2);
        return algorithm.usesBurst() ? Rule.builder(algorithm, 3, window).burst(5).build() : Rule.of(algorithm, 5, window);
    }

    /**
     * A seeded run of 120 calls of one algorithm's script on one key: consume or peek 1 to 3
     * permits, take leases (the four leasing algorithms), give back admissions and lease rests (at
     * most what each took, in any order, possibly after their window), let time pass, and now and
     * then find another algorithm's state (or WRONGTYPE) under the key.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "SLIDING_WINDOW", "TOKEN_BUCKET",
        "LEAKY_BUCKET", "GCRA"})
    void everyCallAnswersAndWritesAsRealRedis(Algorithm algorithm) {
        Rule rule = rule(algorithm);
        LuaScript script = LuaEvaluator.script(algorithm);
        boolean leasing = algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_LOG
                || algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA;
        String key = redis.key("parity:" + algorithm.configName());
        List<long[]> receipts = new ArrayList<>();
        Random random = new Random(37 + algorithm.ordinal());
        for (int step = 0; step < 120; step++) {
            int kind = random.nextInt(100);
            long permits = 1 + random.nextInt(3);
            if (kind < 35 || (kind < 50 && !leasing)) {
                List<Long> reply = call(script, key, limiterArgs(rule, "1", permits), true, "consume " + permits);
                if (reply != null && reply.size() == 7) {
                    receipts.add(new long[] {permits, reply.get(5), reply.get(6)});
                }
            } else if (kind < 45) {
                call(script, key, limiterArgs(rule, "0", permits), true, "peek " + permits);
            } else if (kind < 60) {
                String mode = "L" + (1 + random.nextInt(20)) + ":" + (100_000 + random.nextInt(900_000));
                List<Long> reply = call(script, key, limiterArgs(rule, mode, permits), true, mode + " " + permits);
                if (reply != null && reply.size() == 11) {
                    receipts.add(new long[] {permits, reply.get(5), reply.get(6)});
                    receipts.add(new long[] {reply.get(7), reply.get(9), reply.get(6)});
                }
            } else if (kind < 75 && !receipts.isEmpty()) {
                long[] receipt = receipts.remove(random.nextInt(receipts.size()));
                long back = 1 + (long) random.nextInt((int) Math.min(receipt[0], 20));
                call(REFUND, List.of(key, RedisKeys.resetGuard(key)), refundArgs(rule, back, receipt[1], receipt[2]), true,
                        "refund " + back + " of " + receipt[1]);
            } else if (kind < 95) {
                fake.advance(STEPS[random.nextInt(STEPS.length)]);
            } else {
                foreignState(key, random.nextInt(4));
            }
        }
        assertThat(log).as("calls compared").hasSizeGreaterThan(60);
    }

    @Test
    void overridesAndTheClientResetMarkAnswerAndWriteAsRealRedis() {
        List<String> keys = List.of(redis.key("parity:{p}:overrides"), redis.key("parity:{p}:client-reset"));
        overrides(keys, "read", "", "", "");
        overrides(keys, "set", "limit", "7", "JMX on host-1");
        overrides(keys, "set", "enforce", "false", "JMX on host-2 \u00e9");
        overrides(keys, "reset", "", "3600000", "");
        fake.advance(Duration.ofMillis(1500));
        overrides(keys, "reset", "", "3600000", "");
        fake.command("HSET", keys.get(0), "limit", "1e3", "enforce", "yes");
        overrides(keys, "read", "", "", "");
        fake.command("SET", keys.get(1), "not a count", "PX", "5000");
        overrides(keys, "read", "", "", "");
        overrides(keys, "reset", "", "60000", "");
        overrides(keys, "clear", "", "", "by me");
        fake.command("SET", keys.get(0), "a string");
        overrides(keys, "read", "", "", "");
        fake.advance(Duration.ofHours(2));
        overrides(keys, "read", "", "", "");
    }

    private void overrides(List<String> keys, String... args) {
        call(OVERRIDES, keys, List.of(args), false, "overrides " + List.of(args));
    }

    private static List<String> limiterArgs(Rule rule, String mode, long permits) {
        List<String> args = new ArrayList<>();
        args.add(mode);
        args.add(Long.toString(permits));
        args.addAll(rule.algorithm().scriptArguments(rule));
        return args;
    }

    /** As LuaEvaluator's refundArgs: the script's name, arguments per rule, then permits, receipt, life and the rule's. */
    private static List<String> refundArgs(Rule rule, long permits, long stamp, long life) {
        List<String> ruleArgs = rule.algorithm().scriptArguments(rule);
        List<String> args = new ArrayList<>();
        args.add(rule.algorithm().configName());
        args.add(Integer.toString(3 + ruleArgs.size()));
        args.add(Long.toString(permits));
        args.add(Long.toString(stamp));
        args.add(Long.toString(life));
        args.addAll(ruleArgs);
        return args;
    }

    /** Another algorithm's state (or a type no limiter script keeps) under the key, with a TTL. */
    private void foreignState(String key, int which) {
        fake.command("DEL", key);
        switch (which) {
            case 0 -> fake.command("SET", key, "-" + (fake.nanoTime() / 1000 + 700_000), "PX", "700");
            case 1 -> fake.command("SET", key, "t3 " + (fake.nanoTime() / 1000 - 5), "PX", "1500");
            case 2 -> fake.command("ZADD", key, "1", "lease:x:1");
            default -> fake.command("HSET", key, "f", "v");
        }
        log.add("foreign state " + which);
    }

    private List<Long> call(LuaScript script, String key, List<String> args, boolean clock, String what) {
        return call(script, List.of(key), args, clock, what);
    }

    /**
     * One call on both, compared: its reply (or that both refused) and the state of its keys after.
     *
     * @param clock whether the script reads the trailing clock ARGV (every script but overrides.lua)
     * @return the reply, or null when both refused
     */
    private List<Long> call(LuaScript script, List<String> keys, List<String> args, boolean clock, String what) {
        for (String key : keys) {
            if (Long.valueOf(0).equals(fake.command("PTTL", key))) {
                fake.advance(Duration.ofMillis(1));
            }
        }
        String step = "step " + log.size() + " at " + fake.nanoTime() / 1000 + " us: " + script + " " + what
                + ", before " + RealRedisStep.stateOf(fake::command, keys) + "; earlier " + log.subList(Math.max(0, log.size() - 5),
                        log.size());
        RealRedisStep.Result expected = snapshotThenRun(keys, script, args);
        List<String> realArgs = new ArrayList<>(args);
        if (clock) {
            realArgs.add(Long.toString(fake.nanoTime() / 1000));
        }
        RealRedisStep.Result actual = real.run(script.sha1(), script.source(), keys, realArgs, expected.before());
        assertThat(actual.failure() != null).as(step + ": refused? Redis: " + actual.failure() + ", scripted: "
                + expected.failure()).isEqualTo(expected.failure() != null);
        assertThat(actual.reply()).as(step + ": reply").isEqualTo(expected.reply());
        assertThat(actual.after()).as(step + ": state after").isEqualTo(expected.after());
        log.add(script + " " + what + " -> " + (expected.failure() != null ? "refused" : expected.reply()));
        return expected.longs();
    }

    /** The scripted gateway's call, between snapshots of its keys' state. */
    private RealRedisStep.Result snapshotThenRun(List<String> keys, LuaScript script, List<String> args) {
        List<RealRedisStep.KeyState> before = RealRedisStep.stateOf(fake::command, keys);
        List<Long> reply = null;
        String failure = null;
        try {
            reply = fake.eval(script, keys, args);
        } catch (RedisFailureException refused) {
            failure = refused.getMessage();
        }
        return new RealRedisStep.Result(before, reply, failure, RealRedisStep.stateOf(fake::command, keys));
    }

    /** Sanity of the comparison itself: a refusal on both sides counts as the same answer. */
    @Test
    void aRefusalIsComparedAsARefusal() {
        String key = redis.key("parity:refused");
        fake.command("ZADD", key, "1", "a");
        List<Long> reply = call(REFUND, key, List.of("no-such-algorithm", "4", "1", "1", "5", "2000000"), true,
                "unknown algorithm");
        assertThat(reply).isNull();
    }
}
