package dev.ratelimit.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.claim.Receipt;
import dev.ratelimit.local.LocalDenyCache;
import dev.ratelimit.scripts.DecisionAccess;
import dev.ratelimit.scripts.LuaEvaluator;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * One decision's way through a limiter, for every kind of call that decides one client (one key, or
 * one per dimension): the local deny cache, the rules in force, Redis, the failure policy when Redis
 * cannot be asked, and the accounting of what was handed out. {@link RateLimiter} checks the
 * arguments and builds the keys; this decides. Thread-safe.
 */
public final class DecisionFlow {
    private final RulesInForce inForce;
    private final FailurePolicy failurePolicy;
    private final FailureAnswer onFailure;
    /** Null when denials are not remembered. */
    private final LocalDenyCache denyCache;
    private final DecisionAccounting accounting;
    /** Null unless the rules hold leases. */
    private final Leases leases;
    /** Null unless busy clients are lent quota ahead of use. */
    private final QuotaLeases quota;

    public DecisionFlow(RulesInForce inForce, FailurePolicy failurePolicy, FailureAnswer onFailure, LocalDenyCache denyCache,
            DecisionAccounting accounting, Leases leases, QuotaLeases quota) {
        this.inForce = inForce;
        this.failurePolicy = failurePolicy;
        this.onFailure = onFailure;
        this.denyCache = denyCache;
        this.accounting = accounting;
        this.leases = leases;
        this.quota = quota;
    }

    /**
     * One try, answered from the local deny cache when it remembers a denial for this client and
     * cost that has not yet run out.
     *
     * @param permits the caller's permits, or 0 for each rule's cost
     */
    public Decision acquire(String key, List<String> keys, long permits) {
        return acquire(key, keys, permits, 0);
    }

    /**
     * One try that, over the limit, takes the permits for the instant they free up when that is at
     * most {@code maxDelayMicros} away ({@link Decision#delayed()}). A remembered denial answers only
     * while its retry-after is longer than that: a shorter wait may be reserved.
     *
     * @param maxDelayMicros 0 for a plain try; else the rules are one that can reserve (DelayRules)
     */
    public Decision acquire(String key, List<String> keys, long permits, long maxDelayMicros) {
        RulesInForce.Applied current = inForce.current();
        long[] eachRule = permits == 0 ? current.costs : permitsForEachRule(current, permits);
        if (quota != null && keys.size() == 1) {
            Decision leased = quota.admit(keys.get(0), eachRule[0]);
            if (leased != null) {
                accounting.leaseAdmission();
                accounting.handedOut(key, leased, false);
                return leased;
            }
        }
        Decision decision;
        boolean cached = false;
        if (denyCache == null) {
            decision = take(current, key, keys, eachRule, permits, maxDelayMicros);
        } else {
            // Sized once: compiled for Java 8, '+' would grow a 16-character builder for every request.
            String cacheKey = new StringBuilder(key.length() + 21).append(key).append('\n').append(permits).toString();
            decision = denyCache.get(cacheKey);
            if (decision != null && maxDelayMicros > 0
                    && decision.retryAfter().compareTo(Duration.ofNanos(maxDelayMicros * 1000)) <= 0) {
                decision = null;
            }
            if (decision != null) {
                accounting.cachedDenial();
                cached = true;
            } else {
                // Redis' retry-after runs from its script's instant, which comes after this, not from the reply.
                long askedAt = denyCache.now();
                decision = take(current, key, keys, eachRule, permits, maxDelayMicros);
                denyCache.put(cacheKey, decision, askedAt);
            }
        }
        accounting.handedOut(key, decision, cached);
        return decision;
    }

    /** The client's state without taking anything, under the rules last applied. */
    public Decision peek(String key, List<String> keys) {
        RulesInForce.Applied current = inForce.last();
        return decide(current, key, keys, current.costs, 0, false, 0);
    }

    /**
     * Takes the permits, unless adaptive limits have scaled a rule below them: such a request cannot
     * be admitted until the limits rise again, so it is denied without writing anything. Its
     * retry-after is the later of the next adaptation (the limits cannot change before) and the
     * moment the client's state is clear (then it fits as soon as the limits are back); its remaining
     * and reset come from a peek, so the answer is as true as any other denial's.
     */
    private Decision take(RulesInForce.Applied current, String key, List<String> keys, long[] permits,
            long callerPermits, long maxDelayMicros) {
        for (int i = 0; i < permits.length; i++) {
            if (permits[i] > current.rules.get(i).capacity()) {
                Decision state = decide(current, key, keys, current.costs, 0, false, 0);
                return deniedUntilLimitsRise(state, inForce.untilNextAdaptation());
            }
        }
        return decide(current, key, keys, permits, callerPermits, true, maxDelayMicros);
    }

    /**
     * The denial of permits above a rule scaled down by adaptive limits, from a peek of the client's
     * state: see {@code take}. A degraded peek (Redis failed) stands as it is.
     */
    static Decision deniedUntilLimitsRise(Decision state, Duration untilNextAdaptation) {
        if (state.degraded() && !state.local()) {
            return state;
        }
        Duration retryAfter = state.resetAfter().compareTo(untilNextAdaptation) >= 0 ? state.resetAfter()
                : untilNextAdaptation;
        Decision denied = state.local()
                ? Decision.local(false, state.rule(), state.remaining(), retryAfter, state.resetAfter())
                : Decision.of(false, state.rule(), state.remaining(), retryAfter, state.resetAfter());
        // A client in the penalty box stays one there: the peek did not put it in, nor does this denial.
        return state.penalized() ? DecisionAccess.penalized(denied, false) : denied;
    }

    /** @param callerPermits what the caller asked for, or 0 for each rule's cost: for a local decision */
    private Decision decide(RulesInForce.Applied current, String key, List<String> keys, long[] permits,
            long callerPermits, boolean consume, long maxDelayMicros) {
        long start = System.nanoTime();
        try {
            Decision decision;
            if (maxDelayMicros > 0) {
                decision = ((LuaEvaluator) current.evaluator).decideDelaying(keys, permits, maxDelayMicros);
            } else if (leases != null && consume) {
                String lease = leases.nextId();
                decision = Leases.held(current.evaluator.decide(keys, permits, true, lease), keys, lease);
            } else if (quota != null && consume && keys.size() == 1 && current.evaluator instanceof LuaEvaluator) {
                decision = decideLeasing((LuaEvaluator) current.evaluator, keys, permits);
            } else {
                decision = current.evaluator.decide(keys, permits, consume);
            }
            accounting.redisAnswered(System.nanoTime() - start);
            onFailure.redisAnswered();
            return decision;
        } catch (RedisFailureException e) {
            accounting.redisFailed(key, e, failurePolicy);
            return onFailure.decide(e, keys.get(0), callerPermits, consume);
        }
    }

    /**
     * A round trip that may take a quota lease for the client (and gives back unused parts of
     * earlier ones): an admission is remembered with what Redis lent, so the client's next
     * requests are admitted here while the lease lasts.
     */
    private Decision decideLeasing(LuaEvaluator evaluator, List<String> keys, long[] permits) {
        String leaseKey = keys.get(0);
        long ask = quota.ask(leaseKey);
        List<Receipt> unused = quota.takeUnused(QuotaLeases.RETURNS_PER_CALL);
        long epoch = quota.epoch();
        long sentAt = quota.now();
        LuaEvaluator.Leased leased = evaluator.decideLeasing(keys, permits, ask, quota.lifetimeMicros(), unused);
        if (leased.decision.allowed()) {
            quota.granted(leaseKey, leased.decision, leased.grant, sentAt, epoch);
        }
        return leased.decision;
    }

    private static long[] permitsForEachRule(RulesInForce.Applied current, long permits) {
        long[] eachRule = new long[current.rules.size()];
        Arrays.fill(eachRule, permits);
        return eachRule;
    }
}
