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
    /** Whether the script takes a lease id after the rules' arguments. */
    private final boolean leases;

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
        this.leases = !calendar && rules.get(0).algorithm().holdsLeases();
        this.argCount = count + (leases ? 1 : 0);
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
    static LuaScript calendarScript() {
        return CALENDAR_SCRIPT;
    }

    /** The script of an algorithm, for tests that need to reach Redis the same way. */
    static LuaScript script(Algorithm algorithm) {
        return SCRIPTS.get(algorithm);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume) {
        return decide(keys, permits, consume, null);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume, String lease) {
        List<String> args = new ArrayList<>(argCount);
        args.add(consume ? "1" : "0");
        for (int i = 0; i < rules.size(); i++) {
            args.add(Long.toString(permits[i]));
            args.addAll(ruleArgs.get(i));
            if (!calendarBounds.isEmpty()) {
                args.add(calendarBounds.get(i).text());
            }
        }
        if (leases) {
            // A peek adds nothing; the script still finds its lease argument where it looks.
            args.add(lease == null ? "" : lease);
        }
        List<Long> reply = gateway.eval(script, keys, args);
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
