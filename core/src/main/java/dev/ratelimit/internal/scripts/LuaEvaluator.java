package dev.ratelimit.internal.scripts;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.rules.CalendarBounds;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Runs the algorithm's Lua script for all rules of a limiter at once: all or nothing. */
public final class LuaEvaluator implements Evaluator, Receipt.Issuer {
    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);
    /** Calendar rules: fixed-window counting per calendar period. */
    private static final LuaScript CALENDAR_SCRIPT = LuaScript.limiter("calendar-window");
    /** Gives an admission back, for every algorithm, or charges what it cost past that: see its header. */
    private static final LuaScript REFUND_SCRIPT = RefundCalls.SCRIPT;
    private static final LuaScript CLIENT_RESET_SCRIPT = LuaScript.load("client-reset");
    /** Gives back a lease of {@code concurrency}: a script of its own, as the driver decides nothing here. */
    private static final LuaScript RELEASE_SCRIPT = LuaScript.load("concurrency-release");

    static {
        for (Algorithm algorithm : Algorithm.values()) {
            SCRIPTS.put(algorithm, LuaScript.limiter(algorithm.configName()));
        }
    }

    private final RedisGateway gateway;
    private final List<Rule> rules;
    private final LuaScript script;
    /** Each rule's script arguments after its permits: computed once, not per request. */
    private final List<List<String>> ruleArgs = new ArrayList<>();
    /** Each calendar rule's period starts, which change when a period ends; empty without calendar rules. */
    private final List<CalendarBounds> calendarBounds = new ArrayList<>();
    private final int argCount;
    /** The script's name, as refund.lua knows it. */
    private final String scriptName;
    /** The calls that give back or charge what this evaluator's admissions took. */
    private final RefundCalls refunds;
    /** Whether the script takes a lease id after the rules' arguments. */
    private final boolean leases;
    /** The first value of a delayed admission's reply (limiter-penalty.lua). */
    private static final long DELAYED = 4;
    /** With a penalty, what follows the mode ('P&lt;ms&gt;', limiter-penalty.lua); null without. */
    private final String penaltyMode;

    /**
     * @param rules one or more rules, all of one algorithm (checked by the caller)
     */
    public LuaEvaluator(RedisGateway gateway, List<Rule> rules) {
        this.gateway = gateway;
        this.rules = Immutable.copyOf(rules);
        boolean calendar = rules.get(0).calendar() != null;
        this.script = calendar ? CALENDAR_SCRIPT : SCRIPTS.get(rules.get(0).algorithm());
        this.scriptName = calendar ? "calendar-window" : rules.get(0).algorithm().configName();
        int count = 1;
        for (Rule rule : rules) {
            List<String> args = calendar ? Immutable.listOf(Long.toString(rule.limit()))
                    : rule.algorithm().scriptArguments(rule);
            ruleArgs.add(args);
            count += 1 + args.size() + (calendar ? 1 : 0);
            if (calendar) {
                calendarBounds.add(new CalendarBounds(rule.calendar(), rule.timeZone(), System::currentTimeMillis));
            }
        }
        this.leases = !calendar && rules.get(0).algorithm().holdsLeases();
        this.argCount = count + (leases ? 1 : 0);
        this.refunds = new RefundCalls(scriptName, ruleArgs, argCount);
        Duration penalty = rules.get(0).penalty();
        this.penaltyMode = penalty == null ? null : "P" + penalty.toMillis();
    }

    /**
     * Gives back a lease that an admission of {@code concurrency} recorded under the keys: one
     * round trip, and nothing happens when it is gone already (released, or expired).
     *
     * @return how many leases were removed: 0 or, for a lease still held, 1
     * @throws dev.ratelimit.RedisFailureException if Redis cannot be asked
     */
    public static long release(RedisGateway gateway, List<String> keys, String lease) {
        return gateway.eval(RELEASE_SCRIPT, keys, Immutable.listOf(lease)).get(0);
    }

    /** The script of calendar rules, for tests that need to reach Redis the same way. */
    public static LuaScript calendarScript() {
        return CALENDAR_SCRIPT;
    }

    /** The script of an algorithm, for tests that need to reach Redis the same way. */
    public static LuaScript script(Algorithm algorithm) {
        return SCRIPTS.get(algorithm);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume) {
        return decide(keys, permits, consume, null);
    }

    /** The decisions' script first, then the refunds' ({@code countStatus}) and the leases' releases. */
    @Override
    public List<LuaScript> scripts() {
        return leases ? Immutable.listOf(script, REFUND_SCRIPT, RELEASE_SCRIPT) : Immutable.listOf(script, REFUND_SCRIPT);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume, String lease) {
        ScriptCall call = call(keys, permits, consume ? "1" : "0", lease);
        return decision(keys, permits, gateway.eval(call.script, call.keys, call.args));
    }

    /**
     * Takes the permits of one rule for one key, or, over the limit, for the instant they free up
     * when that is at most {@code maxDelayMicros} away: a {@link Decision#delayed()} admission
     * (limiter-penalty.lua). The caller checked that the rule's algorithm can reserve (DelayRules).
     */
    @Override
    public Decision decideDelaying(List<String> keys, long[] permits, long maxDelayMicros) {
        ScriptCall call = call(keys, permits, "1D" + maxDelayMicros, null);
        return decision(keys, permits, gateway.eval(call.script, call.keys, call.args));
    }

    /** The call {@link #decide} makes, for a batch to send with others ({@link RedisGateway#evalAll}). */
    @Override
    public ScriptCall call(List<String> keys, long[] permits, boolean consume) {
        return call(keys, permits, consume ? "1" : "0", null);
    }

    /** @param mode '1' to consume, '0' to peek, 'L&lt;ask&gt;:&lt;lifetime&gt;' to consume and lease (limiter-driver.lua) */
    private ScriptCall call(List<String> keys, long[] permits, String mode, String lease) {
        List<String> args = new ArrayList<>(argCount);
        args.add(mode);
        for (int i = 0; i < rules.size(); i++) {
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
     * Takes the permits of one rule for one key and asks for a quota lease of up to {@code ask}
     * permits more, for at most {@code lifetimeMicros} (limiter-driver.lua). The unused parts of
     * earlier leases go back in the same round trip, before the decision (one pipeline); a failure
     * to give them back is dropped: those permits stay counted until their window frees them.
     *
     * @param returns receipts this evaluator issued (the unused parts of its leases)
     * @throws dev.ratelimit.RedisFailureException if the decision cannot be made
     */
    @Override
    public Leased decideLeasing(List<String> keys, long[] permits, long ask, long lifetimeMicros,
            List<Receipt> returns) {
        // Without an ask, a plain call: it may travel joined with others (BatchedCalls).
        ScriptCall call = call(keys, permits, ask > 0 ? "L" + ask + ":" + lifetimeMicros : "1", null);
        List<Long> reply;
        if (returns.isEmpty()) {
            reply = gateway.eval(call.script, call.keys, call.args);
        } else {
            List<ScriptCall> calls = new ArrayList<>(returns.size() + 1);
            for (Receipt unused : returns) {
                calls.add(refundCall(unused, true, false));
            }
            calls.add(call);
            List<ScriptCall.Outcome> outcomes = gateway.evalAll(calls);
            reply = outcomes.get(outcomes.size() - 1).reply();
        }
        Decision decision = decision(keys, permits, reply);
        int leased = 1 + 6 * rules.size();
        if (reply.size() < leased + 4) {
            return new Leased(decision, null);
        }
        long granted = reply.get(leased);
        // The lease's stamp, then the instant it was lent (refund.lua's reset guard compares them); it
        // was taken in the admission's life.
        Receipt ticket = new Receipt(this, keys, new long[] {granted}, new long[] {reply.get(leased + 2), reply.get(leased + 3)},
                new long[] {reply.get(leased - 1)});
        return new Leased(decision, new QuotaGrant(reply.get(leased + 1), ticket));
    }

    /**
     * The decision a reply to {@link #call} holds, as {@link #decide} would return it: an admission
     * that consumed carries a receipt for {@link #giveBack} (the driver adds each rule's stamp, then
     * each rule's life).
     */
    @Override
    public Decision decision(List<String> keys, long[] permits, List<Long> reply) {
        Decision decision = governing(reply);
        if (reply.get(0) == DELAYED) {
            // {DELAYED, 1, remaining, wait_us, reset_after_us, receipt, life}: one rule (limiter-driver.lua).
            decision = Decision.delayed(rules.get(0), reply.get(2), micros(reply.get(3)), micros(reply.get(4)));
        } else if (reply.get(0) > 1) {
            // limiter-penalty.lua: 2 for the denial that put the client in the penalty box, 3 while it is there.
            decision = DecisionAccess.penalized(decision, reply.get(0) == 2);
        }
        int receipts = 1 + 4 * rules.size();
        if (reply.size() >= receipts + 2 * rules.size()) {
            long[] stamps = new long[rules.size()];
            long[] lives = new long[rules.size()];
            for (int i = 0; i < stamps.length; i++) {
                stamps[i] = reply.get(receipts + i);
                lives[i] = reply.get(receipts + rules.size() + i);
            }
            decision = DecisionAccess.withReceipt(decision, new Receipt(this, keys, permits, stamps, lives));
        }
        return decision;
    }

    /**
     * Gives back the unused parts of quota leases this evaluator granted, in one round trip (one
     * pipeline per node).
     *
     * @return how many gave something back
     */
    @Override
    public int giveBackAll(List<Receipt> receipts) {
        List<ScriptCall> calls = new ArrayList<>(receipts.size());
        for (Receipt receipt : receipts) {
            calls.add(refundCall(receipt, true, false));
        }
        int back = 0;
        for (ScriptCall.Outcome outcome : gateway.evalAll(calls)) {
            try {
                back += outcome.reply().contains(1L) ? 1 : 0;
            } catch (RuntimeException failed) {
                // Dropped: those permits stay counted until their window frees them.
            }
        }
        return back;
    }

    /** One round trip to refund.lua: each rule's permits and stamp, then its limiter arguments. */
    @Override
    public boolean giveBack(Receipt receipt) {
        return settle(receipt, false);
    }

    /** One round trip to refund.lua as a charge ({@code 'charge <algorithm>'}): the receipt's permits taken, past the limit too. */
    @Override
    public boolean charge(Receipt receipt) {
        return settle(receipt, true);
    }

    /**
     * Each rule's permits and stamp, then its arguments, as the evaluator that issued the receipt had
     * them. Rules change (a live override, an adaptive limit) while a lease waits to go back: its
     * permits must go back at the rate they were taken at (for gcra, its old interval per permit).
     */
    private boolean settle(Receipt receipt, boolean charge) {
        ScriptCall call = refundCall(receipt, false, charge);
        return gateway.eval(call.script, call.keys, call.args).contains(1L);
    }

    /**
     * The call to refund.lua for the receipt, with the arguments of the evaluator that issued it
     * (RefundCalls); a quota lease's rest is named as a lease's, with the client's reset guard after
     * its key, so that nothing goes back into the state of a client reset since.
     */
    private ScriptCall refundCall(Receipt receipt, boolean leaseRest, boolean charge) {
        LuaEvaluator issuer = receipt.issuer() instanceof LuaEvaluator ? (LuaEvaluator) receipt.issuer() : this;
        return issuer.refunds.call(receipt, leaseRest, charge);
    }

    /** In one call, {@code client-reset.lua}: no rest of a quota lease, no refund given back late passes the guard. */
    @Override
    public void forgetClient(List<String> keys, Duration guard) {
        List<String> withGuard = new ArrayList<>(keys);
        withGuard.add(RedisKeys.resetGuard(keys.get(0)));
        gateway.eval(CLIENT_RESET_SCRIPT, withGuard, Collections.singletonList(Long.toString(guard.toMillis())));
    }

    /** The refund script, for tests that need to reach Redis the same way. */
    public static LuaScript refundScript() {
        return REFUND_SCRIPT;
    }

    /**
     * The reply is {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
     * Denied: the denying rule that frees up last speaks. Allowed: the rule with the fewest left.
     */
    private Decision governing(List<Long> reply) {
        boolean allowed = reply.get(0) == 1 || reply.get(0) == DELAYED;
        int chosen = -1;
        for (int i = 0; i < rules.size(); i++) {
            int at = 1 + 4 * i;
            if (chosen < 0) {
                if (allowed || reply.get(at) == 0) {
                    chosen = i;
                }
                continue;
            }
            int best = 1 + 4 * chosen;
            boolean better = allowed
                    ? reply.get(at + 1) < reply.get(best + 1)
                    : reply.get(at) == 0 && reply.get(at + 2) > reply.get(best + 2);
            if (better) {
                chosen = i;
            }
        }
        int at = 1 + 4 * chosen;
        Duration retryAfter = allowed ? Duration.ZERO : micros(reply.get(at + 2));
        return Decision.of(allowed, rules.get(chosen), reply.get(at + 1), retryAfter, micros(reply.get(at + 3)));
    }

    private static Duration micros(long micros) {
        return Duration.ofNanos(Math.max(0, micros) * 1000);
    }
}
