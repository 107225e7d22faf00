package dev.ratelimit.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.UnifiedJedis;

/**
 * An application node running main as of commit d23b70f, as far as Redis can tell: that commit's Lua
 * scripts, kept byte for byte under {@code src/test/resources/upgrade/d23b70f/} (never edit them),
 * joined and called with the keys and arguments d23b70f's Java sent (its {@code LuaScript.limiter},
 * {@code LuaEvaluator.call}, {@code RefundCalls.call}, {@code Algorithm.scriptArguments},
 * {@code ClientKeys.of}, {@code OverridesExchange.Scripted}), written out here rather than taken from
 * today's code, so that a change there cannot change what the old node sends. Plain client keys
 * only (short printable ASCII, which d23b70f kept as they are).
 */
final class D23b70fNode {
    /** Where the scripts are: the commit's short name. */
    private static final String FOLDER = "/upgrade/d23b70f/";
    /** The SHA-1s Redis knew d23b70f's scripts by: proof that the resources are that commit's. */
    static final Map<String, String> SHA1 = Map.of(
            "fixed-window", "e810e7baad201486c7a84fdc89a6c231b2f09f8f",
            "sliding-log", "6f6a95c26f68b56f79b734e9283a897ed45db92a",
            "sliding-window", "f2d14fc3b4636f7a1eeb09f39af65580d44dd841",
            "token-bucket", "5039cde337cfa4c3cbc010177c1adec7dc2710d4",
            "leaky-bucket", "72f679015030d28f9474ba6f67e91836726f66dd",
            "gcra", "fb7cbc70af587a6fd61b96df166c7df693132549",
            "calendar-window", "064493719543e88b7373b2ab0b409427c9998ad0",
            "concurrency", "0b6cf8006850cf5bcec271cbf6b7e47219ac681a",
            "refund", "2a38faff397adccbfb654fab980593cfe5f5546d",
            "overrides", "99cc6e6eb96f12e3c3b0a338ac425b20492e1576");

    private final UnifiedJedis redis;
    private final String keyPrefix;
    private final String policy;
    private final List<Rule> rules;
    private final String scriptName;
    private final String source;
    private int leases;

    D23b70fNode(UnifiedJedis redis, String keyPrefix, String policy, Rule... rules) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
        this.policy = policy;
        this.rules = Arrays.asList(rules);
        this.scriptName = rules[0].calendar() != null ? "calendar-window" : rules[0].algorithm().configName();
        this.source = limiterScript(scriptName);
    }

    /** A limiter's script as d23b70f's {@code LuaScript.limiter} joined it: penalty box, clock, algorithm, driver. */
    static String limiterScript(String algorithm) {
        return read("limiter-penalty") + "\n" + read("limiter-clock") + "\n" + read(algorithm) + "\n"
                + read("limiter-driver");
    }

    static String read(String name) {
        try (InputStream in = D23b70fNode.class.getResourceAsStream(FOLDER + name + ".lua")) {
            assertThat(in).as(FOLDER + name + ".lua").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code <keyPrefix><policy>:{<client>}}, and {@code :<rule name>} after it for each rule when there are several. */
    List<String> keys(String client) {
        String base = keyPrefix + policy + ":{" + client + "}";
        List<String> keys = new ArrayList<>();
        for (Rule rule : rules) {
            keys.add(rules.size() == 1 ? base : base + ":" + rule.name());
        }
        return keys;
    }

    /** One decision of one permit per rule; the whole reply ({@code limiter-driver.lua}'s). */
    List<Long> decide(String client, String mode) {
        List<String> keys = keys(client);
        List<String> args = new ArrayList<>();
        args.add(mode);
        for (Rule rule : rules) {
            args.add("1");
            args.addAll(arguments(rule));
        }
        if (rules.get(0).algorithm() == Algorithm.CONCURRENCY && rules.get(0).calendar() == null) {
            args.add("lease:d23b70f:" + ++leases);
        }
        Rule first = rules.get(0);
        if (first.penalty() != null && mode.length() == 1) {
            args.set(0, mode + "P" + first.penalty().toMillis());
            keys = List.of(keys.get(0), keys.get(0) + ":{penalty}");
        }
        return eval(source, keys, args);
    }

    /** An admission, as a request's: the whole reply, with its receipts when admitted. */
    List<Long> admit(String client) {
        return decide(client, "1");
    }

    /**
     * Gives back what {@code admitted} (a reply of {@link #admit}) took, as d23b70f's {@code RefundCalls}
     * sent it for {@code countStatus}: per rule 1 when something went back.
     */
    List<Long> refund(String client, List<Long> admitted) {
        List<String> args = new ArrayList<>();
        args.add(scriptName);
        args.add(Integer.toString(2 + refundArguments(rules.get(0)).size()));
        for (int i = 0; i < rules.size(); i++) {
            args.add("1");
            args.add(Long.toString(admitted.get(1 + 4 * rules.size() + i)));
            args.addAll(refundArguments(rules.get(i)));
        }
        return eval(read("refund"), keys(client), args);
    }

    /** {@code overrides.lua}'s exchange: {@code read}, or {@code set} with a field and value; the reply. */
    List<Long> overrides(String op, String field, String value, String origin) {
        String tag = keyPrefix + policy + ":{" + policy + "}";
        return eval(read("overrides"), List.of(tag + ":overrides", tag + ":client-reset"), List.of(op, field, value, origin));
    }

    @SuppressWarnings("unchecked")
    private List<Long> eval(String script, List<String> keys, List<String> args) {
        return (List<Long>) redis.eval(script, keys, args);
    }

    /** A rule's arguments after its permits in a decision: a calendar rule's limit and period starts. */
    private static List<String> arguments(Rule rule) {
        if (rule.calendar() == null) {
            return scriptArguments(rule);
        }
        ZonedDateTime current = rule.calendar().start(ZonedDateTime.now(rule.timeZone()));
        ZonedDateTime next = rule.calendar().next(current);
        return List.of(Long.toString(rule.limit()), micros(rule.calendar().previous(current)) + "," + micros(current)
                + "," + micros(next) + "," + micros(rule.calendar().next(next)));
    }

    /** In a give-back: a calendar rule's limit alone. */
    private static List<String> refundArguments(Rule rule) {
        return rule.calendar() == null ? scriptArguments(rule) : List.of(Long.toString(rule.limit()));
    }

    /** d23b70f's {@code Algorithm.scriptArguments}. */
    private static List<String> scriptArguments(Rule rule) {
        long window = rule.windowMicros();
        switch (rule.algorithm()) {
            case TOKEN_BUCKET:
            case LEAKY_BUCKET:
                long gcd = BigInteger.valueOf(rule.limit()).gcd(BigInteger.valueOf(window)).longValueExact();
                long scale = window / gcd;
                return List.of(Long.toString(rule.burst() * scale), Long.toString(scale), Long.toString(rule.limit() / gcd));
            case GCRA:
                return List.of(Long.toString((window + rule.limit() - 1) / rule.limit()), Long.toString(rule.burst()));
            default:
                return List.of(Long.toString(rule.limit()), Long.toString(window));
        }
    }

    private static long micros(ZonedDateTime at) {
        Instant instant = at.toInstant();
        return TimeUnit.SECONDS.toMicros(instant.getEpochSecond()) + instant.getNano() / 1000;
    }
}
