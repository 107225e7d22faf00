package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs a limiter's production script (by the SHA-1 {@link LuaEvaluator} uses) with exactly the
 * arguments {@link LuaEvaluator} sends, {@link Algorithm#scriptArguments(Rule)} for each rule, plus,
 * for the *ClockIT tests, the trailing {@code now} in microseconds that the scripts read instead of
 * Redis' TIME. Every rule takes the same number of permits.
 *
 * <p>Replies are {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us};
 * {@link #admit} also returns an admission's receipts, one per rule, which {@link #refund} sends
 * to {@code refund.lua} as {@link LuaEvaluator#giveBack} does. A reply that admitted ends with one
 * receipt per rule, then one life per rule ({@link #receiptAt}), then a lease's values ({@link #leaseAt}).
 */
public final class FrozenClockScript {
    private final UnifiedJedis client;
    private final LuaScript script;
    private final List<Rule> rules;

    /** Loads the script of the rules' algorithm into Redis, checking that Redis knows it by our SHA-1. */
    public FrozenClockScript(UnifiedJedis client, Rule... rules) {
        this.client = client;
        this.rules = List.of(rules);
        Algorithm algorithm = rules[0].algorithm();
        for (Rule rule : rules) {
            assertThat(rule.algorithm()).as("one algorithm per limiter").isEqualTo(algorithm);
        }
        this.script = LuaEvaluator.script(algorithm);
        assertThat(client.scriptLoad(script.source())).isEqualTo(script.sha1());
    }

    public String sha1() {
        return script.sha1();
    }

    /** Takes {@code permits} from every rule, the clock frozen at {@code now} microseconds. */
    public List<Long> consume(long now, long permits, String... keys) {
        return decision(run(keys, args(true, permits, now)));
    }

    /** As {@link #consume}, with the receipts that follow an admission: the whole reply. */
    public List<Long> admit(long now, long permits, String... keys) {
        return run(keys, args(true, permits, now));
    }

    /**
     * Gives back what an admission took, as {@link LuaEvaluator#giveBack} sends it, the clock frozen
     * at {@code now}: each rule's permits and receipt (from {@link #admit}'s reply), then its script
     * arguments. Returns per rule 1 when something was given back.
     */
    public List<Long> refund(long now, long permits, List<Long> admitted, String... keys) {
        return settle("", now, permits, admitted, keys);
    }

    /**
     * Charges {@code permits} on top of what an admission took, as {@link LuaEvaluator#charge} sends
     * it (a refund's arguments, the name {@code charge <algorithm>}), the clock frozen at {@code now}.
     * Returns per rule 1 when something was charged.
     */
    public List<Long> charge(long now, long permits, List<Long> admitted, String... keys) {
        return settle("charge ", now, permits, admitted, keys);
    }

    /** As {@link #refund}, with exactly what production sends: Redis' own clock. */
    public List<Long> refundOnRedisClock(long permits, List<Long> admitted, String... keys) {
        return settle("", -1, permits, admitted, keys);
    }

    private List<Long> settle(String mode, long now, long permits, List<Long> admitted, String... keys) {
        assertThat(admitted).as("an admission's reply, with its receipts and lives").hasSizeGreaterThanOrEqualTo(1 + 6 * rules.size());
        LuaScript refund = ScriptCalls.REFUND;
        List<String> args = new ArrayList<>();
        args.add(mode + rules.get(0).algorithm().configName());
        args.add(Integer.toString(3 + rules.get(0).algorithm().scriptArguments(rules.get(0)).size()));
        for (int i = 0; i < rules.size(); i++) {
            args.add(Long.toString(permits));
            args.add(Long.toString(admitted.get(1 + 4 * rules.size() + i)));
            args.add(Long.toString(admitted.get(1 + 5 * rules.size() + i)));
            args.addAll(rules.get(i).algorithm().scriptArguments(rules.get(i)));
        }
        if (now >= 0) {
            args.add(Long.toString(now));
        }
        List<String> withGuard = new ArrayList<>(Arrays.asList(keys));
        if (mode.isEmpty()) {
            // A give-back, not a charge: the client's reset guard follows its keys (RefundCalls).
            withGuard.add(RedisKeys.resetGuard(keys[0]));
        }
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) client.eval(refund.source(), withGuard, args);
        return reply;
    }

    /** As {@link #admit}, with exactly what production sends: Redis' own clock; the whole reply. */
    public List<Long> admitOnRedisClock(long permits, String... keys) {
        return run(keys, args(true, permits));
    }

    /**
     * Gives back {@code permits} of a quota lease with this receipt, as {@link LuaEvaluator} sends a
     * lease's rest: refund.lua as a lease's, lent at {@code lentAt} in the state's {@code life}, with
     * the client's reset guard as the last key.
     */
    public List<Long> giveBackLease(long now, long permits, long receipt, long lentAt, long life, String key) {
        LuaScript refund = ScriptCalls.REFUND;
        Rule rule = rules.get(0);
        List<String> args = new ArrayList<>();
        args.add(rule.algorithm().configName() + " lease " + lentAt);
        args.add(Integer.toString(3 + rule.algorithm().scriptArguments(rule).size()));
        args.add(Long.toString(permits));
        args.add(Long.toString(receipt));
        args.add(Long.toString(life));
        args.addAll(rule.algorithm().scriptArguments(rule));
        args.add(Long.toString(now));
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) client.eval(refund.source(), Arrays.asList(key, RedisKeys.resetGuard(key)), args);
        return reply;
    }

    /**
     * Takes {@code permits} and asks for a quota lease of up to {@code ask} permits for {@code lifetimeMicros}
     * (mode {@code L<ask>:<lifetime>}), one rule: the whole reply, a lease's values at {@link #leaseAt}.
     */
    public List<Long> lease(long now, long ask, long lifetimeMicros, long permits, String key) {
        List<String> args = args(true, permits, now);
        args.set(0, "L" + ask + ":" + lifetimeMicros);
        return run(new String[] {key}, args);
    }

    /** Where a one-rule reply's lease begins: {granted, lease_us, ticket, lent_at} (limiter-driver.lua). */
    public static int leaseAt() {
        return 7;
    }

    /** Where a one-rule admission's reply holds its receipt; its life follows. */
    public static int receiptAt() {
        return 5;
    }

    /** Gives back {@code permits} of the lease in {@code leased} (a reply of {@link #lease}) as a lease's rest. */
    public List<Long> giveBackLease(long now, long permits, List<Long> leased, String key) {
        assertThat(leased).as("a reply with a lease").hasSize(leaseAt() + 4);
        return giveBackLease(now, permits, leased.get(leaseAt() + 2), leased.get(leaseAt() + 3), leased.get(receiptAt() + 1),
                key);
    }

    /**
     * A delayed admission's call ({@code 1D<max_us>}, limiter-penalty.lua), one rule: the whole reply,
     * {4, 1, remaining, wait_us, reset_after_us, receipt...} when delayed.
     */
    public List<Long> delaying(long now, long permits, long maxMicros, String key) {
        List<String> args = args(true, permits, now);
        args.set(0, "1D" + maxMicros);
        return run(new String[] {key}, args);
    }

    /**
     * A state as it was before states kept their life: gcra's {@code -<tat>}, token-bucket's
     * {@code t<tokens> <at>}, leaky-bucket's {@code l<level> <at>}, sliding-window's {@code w<w> <c> <p>},
     * for tests of what the algorithm counts; anything else as it is.
     */
    public static String withoutLife(String state) {
        if (state == null) {
            return null;
        }
        String[] parts = state.split(" ");
        if (state.startsWith("-")) {
            return parts[0];
        }
        if (state.startsWith("w") && parts.length > 3) {
            return parts[0] + " " + parts[1] + " " + parts[2];
        }
        return (state.startsWith("t") || state.startsWith("l")) && parts.length > 2 ? parts[0] + " " + parts[1] : state;
    }

    /** The decision without an admission's receipts, which {@link #admit} shows. */
    private List<Long> decision(List<Long> reply) {
        return reply.subList(0, Math.min(reply.size(), 1 + 4 * rules.size()));
    }

    /** Asks, writing nothing, whether every rule has {@code permits}, the clock frozen at {@code now}. */
    public List<Long> peek(long now, long permits, String... keys) {
        return decision(run(keys, args(false, permits, now)));
    }

    /** Takes {@code permits} from every rule with exactly what production sends: Redis' own clock. */
    public List<Long> consumeOnRedisClock(long permits, String... keys) {
        return decision(run(keys, args(true, permits)));
    }

    /** What {@link LuaEvaluator#decide} sends: consume flag, then per rule its permits and script arguments. */
    public List<String> args(boolean consume, long permits) {
        List<String> args = new ArrayList<>();
        args.add(consume ? "1" : "0");
        for (Rule rule : rules) {
            args.add(Long.toString(permits));
            args.addAll(rule.algorithm().scriptArguments(rule));
        }
        return args;
    }

    /** {@link #args(boolean, long)} and then the clock: {@code now} in microseconds since the epoch. */
    public List<String> args(boolean consume, long permits, long now) {
        List<String> args = args(consume, permits);
        args.add(Long.toString(now));
        return args;
    }

    /** Runs the script with the given arguments, as they are: for scripts that take more than the rules' (a lease). */
    public List<Long> run(List<String> args, String... keys) {
        return run(keys, args);
    }

    private List<Long> run(String[] keys, List<String> args) {
        assertThat(keys).as("one key per rule").hasSize(rules.size());
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) client.evalsha(script.sha1(), Arrays.asList(keys), args);
        return reply;
    }
}
