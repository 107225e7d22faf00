package dev.ratelimit.internal.scripts;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.rules.CalendarBounds;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;

/**
 * What one {@link LuaEvaluator}'s rules send the scripts, each rule's arguments worked out once, and
 * what the replies say. The calls are its decisions' (the algorithm's script, or
 * {@code calendar-window.lua}) and {@code refund.lua}'s, which give an admission's permits back,
 * charge what it turned out to cost, or return a quota lease's unused part. A receipt goes back
 * through the calls of the evaluator that issued it: rules change (a live override, an adaptive
 * limit) while a lease waits to go back, and its permits must go back at the rate they were taken at
 * (for gcra, its old interval per permit), never the new one.
 *
 * <p>A decision's reply is {all_allowed, then per rule: allowed, remaining, retry_after_us,
 * reset_after_us}; an admission that consumed adds each rule's stamp, then each rule's life (its
 * receipt); a lease granted adds its permits, lifetime, stamp and the instant it was lent
 * (limiter-driver.lua). The local limiter lays its answers out the same way.
 */
public final class ScriptCalls {
    static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);
    /** Calendar rules: fixed-window counting per calendar period. */
    static final LuaScript CALENDAR = LuaScript.limiter("calendar-window");
    /** Gives an admission back, for every algorithm, or charges what it cost past that: see its header. */
    static final LuaScript REFUND = LuaScript.load("refund");

    /** The first value of a delayed admission's reply (limiter-penalty.lua). */
    private static final long DELAYED = 4;

    static {
        for (Algorithm algorithm : Algorithm.values()) {
            SCRIPTS.put(algorithm, LuaScript.limiter(algorithm.configName()));
        }
    }

    private final Receipt.Issuer issuer;
    private final List<Rule> rules;
    final LuaScript script;
    /** The script's name, as refund.lua knows it. */
    private final String scriptName;
    /** Each rule's script arguments after its permits. */
    private final List<List<String>> ruleArgs = new ArrayList<>();
    /** Each calendar rule's period starts, which change when a period ends; empty without calendar rules. */
    private final List<CalendarBounds> calendarBounds = new ArrayList<>();
    /** Whether the script takes a lease id after the rules' arguments. */
    final boolean leases;
    private final int argCount;
    /** With a penalty, what follows the mode ('P&lt;ms&gt;', limiter-penalty.lua); null without. */
    private final String penaltyMode;

    /** @param issuer who gives back what the replies' admissions took; {@code rules} of one algorithm */
    ScriptCalls(Receipt.Issuer issuer, List<Rule> rules, LongSupplier epochMillis) {
        this.issuer = issuer;
        this.rules = Immutable.copyOf(rules);
        boolean calendar = rules.get(0).calendar() != null;
        this.script = calendar ? CALENDAR : SCRIPTS.get(rules.get(0).algorithm());
        this.scriptName = calendar ? "calendar-window" : rules.get(0).algorithm().configName();
        int count = 1;
        for (Rule rule : rules) {
            List<String> args = calendar ? Immutable.listOf(Long.toString(rule.limit()))
                    : rule.algorithm().scriptArguments(rule);
            ruleArgs.add(args);
            count += 1 + args.size() + (calendar ? 1 : 0);
            if (calendar) {
                calendarBounds.add(new CalendarBounds(rule.calendar(), rule.timeZone(), epochMillis));
            }
        }
        this.leases = !calendar && rules.get(0).algorithm().holdsLeases();
        this.argCount = count + (leases ? 1 : 0);
        Duration penalty = rules.get(0).penalty();
        this.penaltyMode = penalty == null ? null : "P" + penalty.toMillis();
    }

    /**
     * A decision's call; {@code mode} '1' to consume, '0' to peek, 'L&lt;ask&gt;:&lt;lifetime&gt;' to consume and
     * lease, '1D&lt;max delay&gt;' to consume or reserve (limiter-driver.lua); a concurrency admission records lease.
     */
    ScriptCall call(List<String> keys, long[] permits, String mode, String lease) {
        List<String> args = new ArrayList<>(argCount);
        args.add(mode);
        for (int i = 0; i < ruleArgs.size(); i++) {
            // Per request: one permit's text is a constant, and addAll would copy the rule's list first.
            args.add(permits[i] == 1 ? "1" : Long.toString(permits[i]));
            for (String constant : ruleArgs.get(i)) {
                args.add(constant);
            }
            if (!calendarBounds.isEmpty()) {
                args.add(calendarBounds.get(i).text());
            }
        }
        if (leases) {
            // A peek adds nothing; the script still finds its lease argument where it looks.
            args.add(lease == null ? "" : lease);
        }
        if (penaltyMode != null && mode.length() == 1) {
            // The penalty box follows the key (one rule: PenaltyRules); leases are refused with a penalty.
            args.set(0, mode + penaltyMode);
            List<String> withBox = new ArrayList<>(2);
            withBox.add(keys.get(0));
            withBox.add(RedisKeys.penaltyBox(keys.get(0)));
            keys = withBox;
        }
        return new ScriptCall(script, keys, args);
    }

    /**
     * A call to refund.lua: per rule the receipt's permits, stamp and life, then the rule's
     * arguments. A give-back (a refund, a lease's unused part) has the client's reset guard after its
     * keys, so that nothing goes back into the state of a client reset since; a charge lands in the
     * state as it is now, and takes none. A quota lease's rest is named as a lease's, with the instant it was lent.
     */
    ScriptCall refund(Receipt receipt, boolean leaseRest, boolean charge) {
        List<String> keys = receipt.keys();
        if (!charge) {
            keys = new ArrayList<>(keys);
            keys.add(RedisKeys.resetGuard(keys.get(0)));
        }
        List<String> args = new ArrayList<>(2 + argCount + 2 * ruleArgs.size());
        args.add(charge ? "charge " + scriptName : leaseRest ? scriptName + " lease " + receipt.stamp(1) : scriptName);
        args.add(Integer.toString(3 + ruleArgs.get(0).size()));
        for (int i = 0; i < ruleArgs.size(); i++) {
            args.add(Long.toString(receipt.permits(i)));
            args.add(Long.toString(receipt.stamp(i)));
            args.add(Long.toString(receipt.life(i)));
            args.addAll(ruleArgs.get(i));
        }
        return new ScriptCall(REFUND, keys, args);
    }

    /** The index of the rule a decision speaks for: denied, the denying rule freed last; allowed, the fewest left. */
    public static int governing(int rules, boolean allowed, IntToLongFunction reply) {
        int chosen = -1;
        for (int i = 0; i < rules; i++) {
            int at = 1 + 4 * i;
            if (chosen < 0) {
                if (allowed || reply.applyAsLong(at) == 0) {
                    chosen = i;
                }
                continue;
            }
            int best = 1 + 4 * chosen;
            boolean better = allowed ? reply.applyAsLong(at + 1) < reply.applyAsLong(best + 1)
                    : reply.applyAsLong(at) == 0 && reply.applyAsLong(at + 2) > reply.applyAsLong(best + 2);
            if (better) {
                chosen = i;
            }
        }
        return chosen;
    }

    /** A script's microseconds, never below zero. */
    public static Duration micros(long micros) {
        return Duration.of(Math.max(0, micros), ChronoUnit.MICROS);
    }

    /** The decision a reply to a decision's call holds. */
    Decision decision(List<String> keys, long[] permits, List<Long> reply) {
        long outcome = reply.get(0);
        boolean allowed = outcome == 1 || outcome == DELAYED;
        int chosen = governing(rules.size(), allowed, reply::get);
        int at = 1 + 4 * chosen;
        long remaining = reply.get(at + 1);
        Duration wait = micros(reply.get(at + 2));
        Duration resetAfter = micros(reply.get(at + 3));
        if (allowed) {
            // A delayed one waits: {DELAYED, 1, remaining, wait_us, reset_after_us, receipt, life}, one rule (limiter-driver.lua).
            return DecisionAccess.get().admission(rules.get(chosen), remaining, outcome == DELAYED ? wait : Duration.ZERO,
                    resetAfter, receipt(keys, permits, reply));
        }
        // limiter-penalty.lua: 2 for the denial that put the client in the penalty box, 3 while it is there.
        return outcome > 1 ? DecisionAccess.get().penaltyDenial(rules.get(chosen), remaining, wait, resetAfter, outcome == 2)
                : Decision.of(false, rules.get(chosen), remaining, wait, resetAfter);
    }

    /** What an admission that consumed took, for a give-back; null for a peek or a denial. */
    private Receipt receipt(List<String> keys, long[] permits, List<Long> reply) {
        int receipts = 1 + 4 * rules.size();
        if (reply.size() < receipts + 2 * rules.size()) {
            return null;
        }
        long[] stamps = new long[rules.size()];
        long[] lives = new long[rules.size()];
        for (int i = 0; i < stamps.length; i++) {
            stamps[i] = reply.get(receipts + i);
            lives[i] = reply.get(receipts + rules.size() + i);
        }
        return new Receipt(issuer, keys, permits, stamps, lives);
    }

    /** The quota lease a reply to a leasing call holds, or null when Redis granted none. */
    QuotaGrant grant(List<String> keys, List<Long> reply) {
        int leased = 1 + 6 * rules.size();
        if (reply.size() < leased + 4) {
            return null;
        }
        // The lease's stamp, then the instant it was lent (refund.lua's reset guard compares them); it
        // was taken in the admission's life.
        Receipt ticket = new Receipt(issuer, keys, new long[] {reply.get(leased)},
                new long[] {reply.get(leased + 2), reply.get(leased + 3)}, new long[] {reply.get(leased - 1)});
        return new QuotaGrant(reply.get(leased + 1), ticket);
    }
}
