package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.local.LocalLimiter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The stage that answers what Redis could not decide, by the {@link FailurePolicy}: a degraded
 * admission or denial, or, for {@link FailurePolicy#LOCAL}, the node's own {@link LocalLimiter},
 * whose state it drops as soon as Redis answers again; without a policy the failure stays, for
 * the caller to throw once the calls Redis answered are settled. Every failure is counted and
 * logged ({@link DecisionAccounting#redisFailed}). A peek enters the chain here. Thread-safe.
 */
public final class FailureAnswer extends Stage {
    public static final Duration DEGRADED_RETRY_AFTER = Duration.ofSeconds(1);
    public static final int LOCAL_LIMITER_SIZE = 10_000;

    private final FailurePolicy policy;
    private final Rule firstRule;
    private final LocalLimiter local;
    private final DecisionAccounting accounting;

    /**
     * @param policy null to throw
     * @param localRules the rules at their local limit, for {@link FailurePolicy#LOCAL}; else ignored
     */
    FailureAnswer(FailurePolicy policy, List<Rule> rules, List<Rule> localRules, LongSupplier nanoClock,
            LongSupplier wallClock, DecisionAccounting accounting) {
        this.policy = policy;
        this.firstRule = rules.get(0);
        this.local = policy == FailurePolicy.LOCAL
                ? new LocalLimiter(localRules, LOCAL_LIMITER_SIZE, nanoClock, wallClock) : null;
        this.accounting = accounting;
    }

    /** In the calls' order: one Redis answered clears the local state, one it failed gets the policy's answer. */
    @Override
    void decide(Calls calls) {
        next.decide(calls);
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            if (call.failure != null) {
                accounting.redisFailed(call.key, call.failure, policy);
                if (policy != null) {
                    call.decision = answer(call.redisKeys.get(0), call.consume ? call.callerPermits : 0, call.consume);
                }
            } else if (call.sent) {
                redisAnswered();
            }
        }
    }

    /** @param localKey the client's first Redis key: bounded in length, and what {@link #forgetClient} gets */
    private Decision answer(String localKey, long callerPermits, boolean consume) {
        if (local == null) {
            return Decision.degraded(policy == FailurePolicy.ALLOW, firstRule, DEGRADED_RETRY_AFTER);
        }
        long[] permits = null;
        if (callerPermits != 0) {
            permits = new long[local.rules().size()];
            Arrays.fill(permits, callerPermits);
        }
        return local.decide(localKey, permits, consume);
    }

    /** Redis answered: whatever the node decided alone is forgotten, so Redis alone decides again. */
    private void redisAnswered() {
        if (local != null && local.holdsState()) {
            local.clear();
        }
    }

    public FailurePolicy policy() {
        return policy;
    }

    /** A client reset: its local state goes too. */
    @Override
    void forgetClient(String localKey) {
        if (local != null) {
            local.forget(localKey);
        }
    }

    /** The rules a node applies alone, or null unless the policy is {@link FailurePolicy#LOCAL}. */
    public List<Rule> localRules() {
        return local == null ? null : local.rules();
    }

    /** Clients the node tracks alone now (0 unless the policy is {@link FailurePolicy#LOCAL}). */
    public int localKeys() {
        return local == null ? 0 : local.size();
    }
}
