package dev.ratelimit.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.Rule;
import dev.ratelimit.local.LocalLimiter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What a limiter hands out when Redis cannot be asked, by its {@link FailurePolicy}: a failure
 * thrown, a degraded admission or denial, or, for {@link FailurePolicy#LOCAL}, the node's own
 * {@link LocalLimiter}, whose state it drops as soon as Redis answers again. Kept apart so that
 * {@link RateLimiter} reads as the Redis path. Thread-safe.
 */
public final class FailureAnswer {
    /** What a degraded denial tells the client to wait. */
    public static final Duration DEGRADED_RETRY_AFTER = Duration.ofSeconds(1);

    private final FailurePolicy policy;
    private final Rule firstRule;
    private final LocalLimiter local;

    /**
     * @param policy null to throw
     * @param localRules the rules at their local limit, for {@link FailurePolicy#LOCAL}; else ignored
     */
    public FailureAnswer(FailurePolicy policy, List<Rule> rules, List<Rule> localRules, int maxLocalKeys,
            LongSupplier nanoClock, LongSupplier wallClock) {
        this.policy = policy;
        this.firstRule = rules.get(0);
        this.local = policy == FailurePolicy.LOCAL ? new LocalLimiter(localRules, maxLocalKeys, nanoClock, wallClock)
                : null;
    }

    /**
     * The answer to a request Redis could not decide.
     *
     * @param localKey the client's first Redis key: bounded in length, and what {@link #forget} gets
     * @param callerPermits the caller's permits, or 0 for each rule's cost
     * @throws RedisFailureException the failure itself, when no policy is set
     */
    Decision decide(RedisFailureException failure, String localKey, long callerPermits, boolean consume) {
        if (policy == null) {
            throw failure;
        }
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
    void redisAnswered() {
        if (local != null && local.holdsState()) {
            local.clear();
        }
    }

    /** The failure policy, or null when failures are thrown. */
    public FailurePolicy policy() {
        return policy;
    }

    /** A client reset: its local state goes too. */
    public void forget(String localKey) {
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
