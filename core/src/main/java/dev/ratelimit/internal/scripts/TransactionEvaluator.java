package dev.ratelimit.internal.scripts;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.rules.TransactionRules;
import java.time.Duration;
import java.util.List;

/**
 * A single rule decided with MULTI/EXEC instead of Lua, for Redis users and servers that may not
 * run scripts. {@code fixed-window}: one transaction that cannot branch, so the increment happens
 * even when it exceeds the limit: the count stays above the limit until the window ends, which
 * denies nothing more for requests of equal cost. {@code sliding-log}: the script's own log, read
 * under WATCH and written in MULTI/EXEC only on an admission, retried when another node changed it
 * meanwhile (three round trips, exact); a node's concurrent requests of one client wait their turn
 * and are decided together. One that cannot be decided within the patience is denied with a short
 * retry-after, never admitted uncounted: a lost race is no Redis failure for the failure policy.
 */
public final class TransactionEvaluator implements Evaluator {
    private final RedisGateway gateway;
    private final Rule rule;
    private final long windowMillis;

    /** @throws IllegalArgumentException for more than one rule, or one that cannot run as a transaction */
    public TransactionEvaluator(RedisGateway gateway, List<Rule> rules) {
        TransactionRules.check(rules);
        this.gateway = gateway;
        this.rule = rules.get(0);
        this.windowMillis = Math.max(1, (rule.windowMicros() + 999) / 1000);
    }

    @Override
    public Decision decide(List<String> keys, long[] permits, boolean consume) {
        String key = keys.get(0);
        if (rule.algorithm() == Algorithm.SLIDING_LOG) {
            long[] outcome = gateway.slidingLogInTransaction(key, permits[0], rule.limit(), rule.windowMicros(), consume);
            return Decision.of(outcome[0] == 1, rule, outcome[1], ScriptCalls.micros(outcome[2]), ScriptCalls.micros(outcome[3]));
        }
        long[] state = consume ? gateway.incrementInWindow(key, permits[0], windowMillis) : gateway.readWindow(key);
        long count = state[0];
        // Redis removes a key once its clock is past the expiry millisecond: PTTL + 1 ms is safe.
        Duration left = state[1] >= 0 ? Duration.ofMillis(state[1] + 1) : Duration.ZERO;
        boolean allowed = consume ? count <= rule.limit() : count + permits[0] <= rule.limit();
        return Decision.of(allowed, rule, rule.limit() - count, allowed ? Duration.ZERO : left, left);
    }

    /** Without scripts nothing is ever given back: no guard to leave. */
    @Override
    public void forgetClient(List<String> keys, Duration guard) {
        gateway.delete(keys);
    }
}
