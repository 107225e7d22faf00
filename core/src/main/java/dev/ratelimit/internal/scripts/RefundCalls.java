package dev.ratelimit.internal.scripts;

import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls to {@code refund.lua} of one {@link LuaEvaluator}: what gives an admission's permits
 * back, charges what it turned out to cost, or returns a quota lease's unused part. Each carries,
 * per rule, the receipt's permits, stamp and life, then the rule's arguments as the evaluator that issued
 * the receipt had them: rules change (a live override, an adaptive limit) while a lease waits to go
 * back, and its permits must go back at the rate they were taken at (for gcra, its old interval per
 * permit), never the new one. Immutable.
 */
final class RefundCalls {
    static final LuaScript SCRIPT = LuaScript.load("refund");

    /** The script's name, as refund.lua knows it. */
    private final String scriptName;
    private final List<List<String>> ruleArgs;
    private final int argCount;

    RefundCalls(String scriptName, List<List<String>> ruleArgs, int argCount) {
        this.scriptName = scriptName;
        this.ruleArgs = ruleArgs;
        this.argCount = argCount;
    }

    /**
     * A give-back (a refund, a lease's unused part) has the client's reset guard after its keys, so
     * that nothing goes back into the state of a client reset since; a charge lands in the state as
     * it is now, and takes none.
     *
     * @param leaseRest a quota lease's unused part: named as a lease's, with the instant it was lent
     * @param charge an after-charge ({@code 'charge <algorithm>'})
     */
    ScriptCall call(Receipt receipt, boolean leaseRest, boolean charge) {
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
        return new ScriptCall(SCRIPT, keys, args);
    }
}
