package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.rules.DelayRules;
import dev.ratelimit.internal.support.EvictionFinding;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One limiter's decision machinery, behind {@code RateLimiter}: the API checks its arguments and
 * documents the promise; this routes each call. Every decision, single or batch ({@link BatchDecisions}),
 * runs the one chain of {@link Stage}s {@link EngineBuilder} assembled; a peek enters it at the
 * failure answer, as it takes nothing. Refunds go through {@link Refunds}, resets through
 * {@link ClientResets}; {@link RulesInForce} says which rules apply now. Thread-safe.
 */
public final class DecisionEngine {
    /** The most denials one limiter remembers in the JVM. */
    public static final int LOCAL_DENY_CACHE_SIZE = 10_000;

    private final String policyName;
    private final ClientKeys keys;
    private final RedisGateway gateway;
    private final FailureAnswer onFailure;
    private final LiveOverrides overrides;
    private final ConcurrencyLeases concurrencyLeases;
    /** Whether the rules are of {@code concurrency}: each admission holds a concurrency lease. */
    private final boolean concurrency;
    private final RulesInForce inForce;
    private final EvictionWatch evictions;
    private final DecisionAccounting accounting;
    private final Refunds refunds;
    private final BatchDecisions batches;
    private final ClientResets resets;
    private final String delayRefusal; // why these rules cannot delay a request (DelayRules.refusal), or null

    DecisionEngine(EngineBuilder parts) {
        this.policyName = parts.policyName;
        this.keys = parts.keys;
        this.gateway = parts.gateway;
        this.onFailure = parts.onFailure;
        this.overrides = parts.overrides;
        this.concurrencyLeases = parts.concurrencyLeases;
        this.inForce = parts.inForce;
        this.evictions = parts.evictions;
        this.accounting = parts.accounting;
        this.concurrency = parts.rules.get(0).algorithm().holdsLeases();
        this.delayRefusal = DelayRules.refusal(parts.rules, parts.transport, parts.quotaLeases);
        this.refunds = new Refunds(policyName, parts.rules, parts.quotaLeases);
        this.batches = new BatchDecisions(parts.rules, parts.transport, inForce, accounting, keys);
        this.resets = new ClientResets(keys, accounting, inForce, overrides);
        // After the warm-up, whose connections it finds ready; not after one Redis did not answer, which
        // would only cost the start another timeout (the first decision due reads it instead).
        if (!parts.warmUp || LimiterWarmUp.run(policyName, gateway, inForce.last().evaluator, overrides,
                onFailure.policy())) {
            evictions.checkIfDue();
        }
    }

    /** Each rule's cost. */
    public Decision acquire(String key) {
        return decide(key, keys.of(key), 0, 0);
    }

    /** Each rule's cost, now or, over the limit, for the instant it frees up within maxDelay. */
    public Decision acquire(String key, Duration maxDelay) {
        DelayRules.checkCall(delayRefusal, maxDelay);
        return decide(key, keys.of(key), 0, maxDelay.toNanos() / 1000);
    }

    /** The caller's permits, checked against every rule's capacity first. */
    public Decision acquire(String key, long permits) {
        keys.checkPermits(permits);
        return decide(key, keys.of(key), permits, 0);
    }

    /** Each rule's cost, each rule counting the client at the same index. */
    public Decision acquireEach(List<String> clientKeys) {
        checkOnePerRule(clientKeys);
        if (onFailure.policy() == FailurePolicy.LOCAL) {
            throw new IllegalStateException("onRedisFailure=local limits one client per decision; policy '"
                    + policyName + "' decides one client per rule: use allow or deny");
        }
        return decide(String.join(" + ", clientKeys), keys.ofEach(clientKeys), 0, 0);
    }

    /**
     * Takes the permits, sleeping out each denial's retry-after, until admitted or until the next
     * wait would end past {@code maxWait}: then the last denial. A degraded answer ends the wait;
     * a local one is a true denial of this node and is waited out like Redis's.
     */
    public Decision acquireWaiting(String key, long permits, Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be zero or positive, but was " + maxWait);
        }
        List<String> redisKeys = keys.of(key);
        keys.checkPermits(permits);
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Decision decision = decide(key, redisKeys, permits, 0);
            if (decision.allowed() || (decision.degraded() && !decision.local())) {
                return decision;
            }
            // At least 1 ms, so that even a rounding quirk can never turn this into a spin.
            long wait = Math.max(TimeUnit.MILLISECONDS.toNanos(1), decision.retryAfter().toNanos());
            if (wait > deadline - System.nanoTime()) {
                return decision;
            }
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /**
     * One client's decision through the chain, under the rules in force now.
     *
     * @param permits the caller's permits, or 0 for each rule's cost
     * @param maxDelayMicros 0 for a plain try; else the rules are ones that can reserve (DelayRules)
     */
    private Decision decide(String key, List<String> redisKeys, long permits, long maxDelayMicros) {
        Call call = new Call(inForce.current(), key, redisKeys, permits, true);
        call.maxDelayMicros = maxDelayMicros;
        accounting.decide(call);
        return call.answer();
    }

    public Map<String, Decision> acquireAll(Map<String, Long> permitsByKey) {
        refuseConcurrencyLeasesInBatches();
        return batches.tryAcquireAll(permitsByKey);
    }

    public List<Decision> acquireAll(List<String> clientKeys) {
        refuseConcurrencyLeasesInBatches();
        return batches.tryAcquireAll(clientKeys);
    }

    /** @throws IllegalArgumentException unless {@code clientKeys} holds one key per rule */
    private void checkOnePerRule(List<String> clientKeys) {
        if (clientKeys == null || clientKeys.size() != keys.rules()) {
            throw new IllegalArgumentException("clientKeys must hold one key per rule (" + keys.rules() + "), but was "
                    + clientKeys);
        }
    }

    /** A batch holds no concurrency leases: each admission needs its own, released by its own request. */
    private void refuseConcurrencyLeasesInBatches() {
        if (concurrency) {
            throw new UnsupportedOperationException("batches take no leases, but policy '" + policyName
                    + "' uses algorithm concurrency: decide each request with tryAcquire and release it");
        }
    }

    public Decision peek(String key) {
        return peek(key, keys.of(key));
    }

    /** Each rule's client's state without taking anything, each rule reading the client at its index. */
    public Decision peekEach(List<String> clientKeys) {
        checkOnePerRule(clientKeys);
        return peek(String.join(" + ", clientKeys), keys.ofEach(clientKeys));
    }

    /** The client's state under the rules last applied: from Redis, or the failure policy's answer. */
    private Decision peek(String key, List<String> redisKeys) {
        Call call = new Call(inForce.last(), key, redisKeys, 0, false);
        onFailure.decide(call);
        return call.answer();
    }

    /** Forgets each rule's client given one, as {@link #reset} forgets one ({@link ClientResets}). */
    public void resetEach(List<String> clientKeys) {
        resets.resetEach(clientKeys);
    }

    /** Forgets the client in Redis and on this node, and marks the reset for the others ({@link ClientResets}). */
    public void reset(String key) {
        resets.reset(key);
    }

    public boolean refund(String key, Decision decision) {
        boolean back = refunds.refund(keys.of(key), decision);
        if (back) {
            // A denial remembered before the refund may no longer hold: never deny what Redis would allow.
            resets.forgetDenials(key);
        }
        return back;
    }

    public boolean charge(String key, Decision decision, long usage) {
        boolean changed = refunds.charge(keys.of(key), decision, usage);
        if (changed) {
            // A part given back may free what a remembered denial refuses.
            resets.forgetDenials(key);
        }
        return changed;
    }

    /** After-charges that took permits, those permits, and charges that failed. */
    public long[] charges() {
        return refunds.charges();
    }

    /**
     * Ends every quota lease this node holds and gives back what it did not use; a failure leaves
     * the rest counted until their window frees them. For a node that stops.
     *
     * @return how many quota leases gave something back
     */
    public int giveBackLeases() {
        int[] back = new int[1];
        accounting.each(stage -> back[0] += stage.giveBack(inForce.last().evaluator));
        return back[0];
    }

    public void release(Decision decision) {
        concurrencyLeases.release(decision);
    }

    public DecisionAccounting accounting() {
        return accounting;
    }

    public LiveOverrides overrides() {
        return overrides;
    }

    public RulesInForce rulesInForce() {
        return inForce;
    }

    public FailureAnswer failureAnswer() {
        return onFailure;
    }

    /** What the store's Redis said about evicting keys when last read; never asks it. */
    public EvictionFinding eviction() {
        return evictions.finding();
    }

    /** The state of the Redis circuit breaker, as the gateway tells it. */
    public String circuitState() {
        return gateway.circuitState();
    }

    public List<String> redisKeys(String key) {
        return keys.of(key);
    }
}
