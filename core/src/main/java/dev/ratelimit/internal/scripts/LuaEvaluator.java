package dev.ratelimit.internal.scripts;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Runs the algorithm's Lua script for all rules of a limiter at once: all or nothing. Its calls are
 * {@link ScriptCalls}'.
 */
public final class LuaEvaluator implements Evaluator, Receipt.Issuer {
    private static final LuaScript CLIENT_RESET_SCRIPT = LuaScript.load("client-reset");
    /** Gives back a lease of {@code concurrency}: a script of its own, as the driver decides nothing here. */
    private static final LuaScript RELEASE_SCRIPT = LuaScript.load("concurrency-release");

    private final RedisGateway gateway;
    private final ScriptCalls calls;

    public LuaEvaluator(RedisGateway gateway, List<Rule> rules) {
        this.gateway = gateway;
        // The gateway's wall clock: a calendar period's bounds by the same clock as the Redis's (a test's moves).
        this.calls = new ScriptCalls(this, rules, gateway::currentTimeMillis);
    }

    /** Gives back a lease a {@code concurrency} admission recorded: 1, or 0 when it is gone (released, expired). */
    public static long release(RedisGateway gateway, List<String> keys, String lease) {
        return gateway.eval(RELEASE_SCRIPT, keys, Immutable.listOf(lease)).get(0);
    }

    /** The script of an algorithm, for tests that need to reach Redis the same way. */
    public static LuaScript script(Algorithm algorithm) {
        return ScriptCalls.SCRIPTS.get(algorithm);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume) {
        return decide(keys, permits, consume, null);
    }

    /** The decisions' script first, then the refunds' ({@code countStatus}) and the leases' releases. */
    @Override
    public List<LuaScript> scripts() {
        return calls.leases ? Immutable.listOf(calls.script, ScriptCalls.REFUND, RELEASE_SCRIPT)
                : Immutable.listOf(calls.script, ScriptCalls.REFUND);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume, String lease) {
        return calls.decision(keys, permits, eval(calls.call(keys, permits, consume ? "1" : "0", lease)));
    }

    /**
     * Takes the permits of one rule for one key, or, over the limit, for the instant they free up
     * when that is at most {@code maxDelayMicros} away: a {@link Decision#delayed()} admission
     * (limiter-penalty.lua). The caller checked that the rule's algorithm can reserve (DelayRules).
     */
    @Override
    public Decision decideDelaying(List<String> keys, long[] permits, long maxDelayMicros) {
        return calls.decision(keys, permits, eval(calls.call(keys, permits, "1D" + maxDelayMicros, null)));
    }

    @Override
    public ScriptCall call(List<String> keys, long[] permits, boolean consume) {
        return calls.call(keys, permits, consume ? "1" : "0", null);
    }

    /**
     * Takes the permits of one rule for one key and asks for a quota lease of up to {@code ask}
     * permits more, for at most {@code lifetimeMicros} (limiter-driver.lua). The unused parts of
     * earlier leases go back in the same round trip, before the decision (one pipeline); a failure
     * to give them back is dropped: those permits stay counted until their window frees them.
     */
    @Override
    public Leased decideLeasing(List<String> keys, long[] permits, long ask, long lifetimeMicros,
            List<Receipt> returns) {
        // Without an ask, a plain call: it may travel joined with others (BatchedCalls).
        ScriptCall call = calls.call(keys, permits, ask > 0 ? "L" + ask + ":" + lifetimeMicros : "1", null);
        List<Long> reply;
        if (returns.isEmpty()) {
            reply = eval(call);
        } else {
            List<ScriptCall> batch = new ArrayList<>(returns.size() + 1);
            for (Receipt unused : returns) {
                batch.add(refundCall(unused, true, false));
            }
            batch.add(call);
            List<ScriptCall.Outcome> outcomes = gateway.evalAll(batch);
            reply = outcomes.get(outcomes.size() - 1).reply();
        }
        return new Leased(calls.decision(keys, permits, reply), calls.grant(keys, reply));
    }

    @Override
    public Decision decision(List<String> keys, long[] permits, List<Long> reply) {
        return calls.decision(keys, permits, reply);
    }

    @Override
    public int giveBackAll(List<Receipt> receipts) {
        List<ScriptCall> batch = new ArrayList<>(receipts.size());
        for (Receipt receipt : receipts) {
            batch.add(refundCall(receipt, true, false));
        }
        int back = 0;
        for (ScriptCall.Outcome outcome : gateway.evalAll(batch)) {
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
        return eval(refundCall(receipt, false, false)).contains(1L);
    }

    /** One round trip to refund.lua as a charge ({@code 'charge <algorithm>'}): the receipt's permits taken, past the limit too. */
    @Override
    public boolean charge(Receipt receipt) {
        return eval(refundCall(receipt, false, true)).contains(1L);
    }

    /** The call to refund.lua for the receipt, with the arguments of the evaluator that issued it. */
    private ScriptCall refundCall(Receipt receipt, boolean leaseRest, boolean charge) {
        LuaEvaluator issuer = receipt.issuer() instanceof LuaEvaluator ? (LuaEvaluator) receipt.issuer() : this;
        return issuer.calls.refund(receipt, leaseRest, charge);
    }

    /** In one call, {@code client-reset.lua}: no rest of a quota lease, no refund given back late passes the guard. */
    @Override
    public void forgetClient(List<String> keys, Duration guard) {
        List<String> withGuard = new ArrayList<>(keys);
        withGuard.add(RedisKeys.resetGuard(keys.get(0)));
        gateway.eval(CLIENT_RESET_SCRIPT, withGuard, Collections.singletonList(Long.toString(guard.toMillis())));
    }

    private List<Long> eval(ScriptCall call) {
        return gateway.eval(call.script, call.keys, call.args);
    }
}
