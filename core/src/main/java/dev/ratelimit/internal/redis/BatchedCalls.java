package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Sends script calls that travel together ({@link CallCoalescer}) with as little Redis work as
 * possible: one-rule decisions of one limiter script, all consuming or all peeking, become one call
 * of the script's batch form ({@code limiter-batch.lua}), which pays once for running a script,
 * reading the clock and building the reply; every other call goes as it is. Then all of them go
 * as one pipeline ({@link RedisGateway#evalAll}), and each caller gets the reply its own call
 * would have had.
 *
 * <p>Not on Cluster: there a script's keys must share a hash slot, which decisions of different
 * clients rarely do, and while a slot migrates a call of several keys is refused (TRYAGAIN) where
 * each alone would be followed to its node; {@link NodeGateway} only pipelines there. A joined call
 * that fails fails each of its decisions, as a call of their own would have. A decision whose
 * script raises an error (a calendar rule whose period starts do not hold Redis' time) fails alone:
 * the batch form catches it and answers it in that decision's place.
 */
final class BatchedCalls {
    private BatchedCalls() {
    }

    /** One outcome per call, in the calls' order; {@code send} sends calls as {@link RedisGateway#evalAll} does. */
    static List<ScriptCall.Outcome> run(List<ScriptCall> calls, Function<List<ScriptCall>, List<ScriptCall.Outcome>> send) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            ScriptCall call = calls.get(i);
            String group = joinable(call) ? call.script.sha1() + call.args.get(0) : "alone " + i;
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(i);
        }
        if (groups.size() == calls.size()) {
            return send.apply(calls);
        }
        List<ScriptCall> sent = new ArrayList<>(groups.size());
        for (List<Integer> members : groups.values()) {
            sent.add(members.size() == 1 ? calls.get(members.get(0)) : joined(calls, members));
        }
        List<ScriptCall.Outcome> answered = send.apply(sent);
        ScriptCall.Outcome[] outcomes = new ScriptCall.Outcome[calls.size()];
        int next = 0;
        for (List<Integer> members : groups.values()) {
            ScriptCall.Outcome outcome = answered.get(next++);
            if (members.size() == 1) {
                outcomes[members.get(0)] = outcome;
            } else {
                split(calls.get(members.get(0)).script, outcome, members, outcomes);
            }
        }
        return Arrays.asList(outcomes);
    }

    /**
     * A one-rule decision of a limiter script with a batch form, with nothing after its rule's
     * arguments (no lease, no test clock), that consumes or peeks without asking for a quota lease;
     * with a penalty, its penalty box after its key. Calls join when their modes are equal, penalty
     * included.
     */
    static boolean joinable(ScriptCall call) {
        LuaScript script = call.script;
        String mode = call.args.isEmpty() ? "" : call.args.get(0);
        return script.batchForm() != null && call.keys.size() == keysOfOne(mode)
                && call.args.size() == 1 + script.argsPerRule()
                && (mode.equals("1") || mode.equals("0") || PENALTY_MODE.matcher(mode).matches());
    }

    /** A decision with a penalty ('1P&lt;ms&gt;', '0P&lt;ms&gt;': limiter-penalty.lua) has its key and its penalty box. */
    private static final Pattern PENALTY_MODE = Pattern.compile("[01]P\\d+");

    private static int keysOfOne(String mode) {
        return mode.indexOf('P') > 0 ? 2 : 1;
    }

    private static ScriptCall joined(List<ScriptCall> calls, List<Integer> members) {
        ScriptCall first = calls.get(members.get(0));
        List<String> keys = new ArrayList<>(members.size() * first.keys.size());
        List<String> args = new ArrayList<>(1 + members.size() * first.script.argsPerRule());
        args.add(first.args.get(0));
        for (int i : members) {
            ScriptCall call = calls.get(i);
            keys.add(call.keys.get(0));
            // One by one: addAll of a sublist would copy it into an array first, for every decision.
            for (int arg = 1; arg < call.args.size(); arg++) {
                args.add(call.args.get(arg));
            }
        }
        // The penalty boxes follow the decisions' keys, in the same order (limiter-batch.lua).
        for (int box = 1; box < first.keys.size(); box++) {
            for (int i : members) {
                keys.add(calls.get(i).keys.get(box));
            }
        }
        return new ScriptCall(first.script.batchForm(), keys, args);
    }

    /**
     * What the batch form answers in place of a decision whose script raised an error, followed by
     * the error's bytes; never the first value of a reply, which is 0 or 1.
     */
    static final long SCRIPT_ERROR = -1;

    /** A decision the script refused: Redis answered, as a single call's error reply would say. */
    private static RedisFailureException refused(LuaScript script, List<Long> own) {
        byte[] text = new byte[own.size() - 1];
        for (int b = 0; b < text.length; b++) {
            text[b] = own.get(b + 1).byteValue();
        }
        return new RedisFailureException("Redis refused running " + script + " for this decision: "
                + new String(text, StandardCharsets.UTF_8), null, true);
    }

    /** Each decision's reply from the batch form's: its length, then the reply itself (or a refusal, see {@link #SCRIPT_ERROR}). */
    private static void split(LuaScript script, ScriptCall.Outcome outcome, List<Integer> members,
            ScriptCall.Outcome[] outcomes) {
        List<Long> reply;
        try {
            reply = outcome.reply();
        } catch (RedisFailureException failed) {
            for (int i : members) {
                outcomes[i] = outcome;
            }
            return;
        }
        int at = 0;
        RedisFailureException malformed = null;
        for (int i : members) {
            long length = at < reply.size() ? reply.get(at) : -1;
            if (malformed == null && (length < 1 || at + 1 + length > reply.size())) {
                // Past this point nothing in the reply can be told apart: no decision gets a guess.
                malformed = new RedisFailureException("Redis answered " + script.batchForm() + " for "
                        + members.size() + " decisions with " + reply, null, true);
            }
            if (malformed != null) {
                outcomes[i] = ScriptCall.Outcome.failed(malformed);
                continue;
            }
            List<Long> own = reply.subList(at + 1, at + 1 + (int) length);
            outcomes[i] = own.get(0) == SCRIPT_ERROR ? ScriptCall.Outcome.failed(refused(script, own))
                    : ScriptCall.Outcome.of(new ArrayList<>(own));
            at += 1 + (int) length;
        }
    }
}
