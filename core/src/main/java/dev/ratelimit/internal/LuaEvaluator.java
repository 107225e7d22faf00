package dev.ratelimit.internal;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Runs the algorithm's Lua script for all rules of a limiter at once: all or nothing. */
public final class LuaEvaluator implements Evaluator {
    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);
    /** Calendar rules: fixed-window counting per calendar period. */
    private static final LuaScript CALENDAR_SCRIPT = LuaScript.limiter("calendar-window");

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

    /**
     * @param rules one or more rules, all of one algorithm (checked by the caller)
     */
    public LuaEvaluator(RedisGateway gateway, List<Rule> rules) {
        this.gateway = gateway;
        this.rules = Immutable.copyOf(rules);
        boolean calendar = rules.get(0).calendar() != null;
        this.script = calendar ? CALENDAR_SCRIPT : SCRIPTS.get(rules.get(0).algorithm());
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
        this.argCount = count;
    }

    /** The script of calendar rules, for tests that need to reach Redis the same way. */
    static LuaScript calendarScript() {
        return CALENDAR_SCRIPT;
    }

    /** The script of an algorithm, for tests that need to reach Redis the same way. */
    static LuaScript script(Algorithm algorithm) {
        return SCRIPTS.get(algorithm);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume) {
        ScriptCall call = call(keys, permits, consume);
        return decision(gateway.eval(call.script, call.keys, call.args));
    }

    /** The call {@link #decide} makes, for a batch to send with others ({@link RedisGateway#evalAll}). */
    public ScriptCall call(List<String> keys, long[] permits, boolean consume) {
        List<String> args = new ArrayList<>(argCount);
        args.add(consume ? "1" : "0");
        for (int i = 0; i < rules.size(); i++) {
            args.add(Long.toString(permits[i]));
            args.addAll(ruleArgs.get(i));
            if (!calendarBounds.isEmpty()) {
                args.add(calendarBounds.get(i).text());
            }
        }
        return new ScriptCall(script, keys, args);
    }

    /** The decision a reply to {@link #call} holds, as {@link #decide} would return it. */
    public Decision decision(List<Long> reply) {
        return governing(reply);
    }

    /**
     * The reply is {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
     * Denied: the denying rule that frees up last speaks. Allowed: the rule with the fewest left.
     */
    private Decision governing(List<Long> reply) {
        boolean allowed = reply.get(0) == 1;
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
