package dev.ratelimit.engine;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.claim.Receipt;
import dev.ratelimit.local.LocalDenyCache;
import dev.ratelimit.redis.EvictionWatch;
import dev.ratelimit.redis.RedisGateway;
import dev.ratelimit.rules.DelayRules;
import dev.ratelimit.scripts.LuaEvaluator;
import dev.ratelimit.support.EvictionFinding;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One limiter's decision machinery, behind {@code RateLimiter}: the API checks its arguments and
 * documents the promise; this keeps the parts and routes each call to them. Single client calls go
 * through {@link DecisionFlow}, batches through {@link BatchDecisions}, refunds and leases through
 * {@link Refunds} and {@link Leases}; {@link RulesInForce} says which rules apply now and
 * {@link FailureAnswer} what a Redis failure gets. Thread-safe.
 */
public final class DecisionEngine {
    /** The most denials one limiter remembers in the JVM. */
    public static final int LOCAL_DENY_CACHE_SIZE = 10_000;
    /** Unused lease parts given back in one pipeline when a node stops. */
    private static final int GIVE_BACK_BATCH = 256;

    private final String policyName;
    private final ClientKeys keys;
    private final RedisGateway gateway;
    private final FailureAnswer onFailure;
    private final LiveOverrides overrides;
    /** Null unless the rules hold leases ({@code concurrency}). */
    private final Leases leases;
    /** Null when denials are not remembered. */
    private final LocalDenyCache denyCache;
    /** Null unless busy clients are lent quota ahead of use. */
    private final QuotaLeases quota;
    private final RulesInForce inForce;
    /** The store's: whether its Redis may evict the limiter's keys. */
    private final EvictionWatch evictions;
    private final DecisionAccounting accounting;
    private final Refunds refunds;
    private final DecisionFlow flow;
    private final BatchDecisions batches;
    private final ClientResets resets;
    private final String delayRefusal; // why these rules cannot delay a request (DelayRules.refusal), or null

    /**
     * @param onFailure what a Redis failure gets: the failure policy, with the local limiter
     * @param localDenyCache whether to remember denials in the JVM (never with leases of either kind)
     * @param quotaLeases whether to lend busy clients quota ahead of use ({@code LeaseRules.supports}
     *     the rules, transport lua, no adaptive limits: checked by the builder)
     * @param adaptive null when the configured rules always apply
     * @param evictions the store's watch on its Redis's eviction settings, read now when due (the
     *     store's first limiter reads while the application starts), then by decisions
     * @param warmUp whether to ready Redis for the first decisions before returning ({@link LimiterWarmUp})
     */
    public DecisionEngine(String policyName, ClientKeys keys, List<Rule> rules, Transport transport,
            RedisGateway gateway, FailureAnswer onFailure, boolean localDenyCache, boolean quotaLeases,
            AdaptiveLimit adaptive, AdaptiveLimit.LoadSource load, DecisionListener listener, LongSupplier nanoClock,
            LongSupplier wallClock, EvictionWatch evictions, boolean warmUp) {
        this.policyName = policyName;
        this.keys = keys;
        this.gateway = gateway;
        this.onFailure = onFailure;
        this.overrides = new LiveOverrides(keys.prefix(), policyName, gateway,
                OverridesExchange.of(transport, gateway), limit -> RulesInForce.atLimit(rules, limit), nanoClock,
                this::clientResetSomewhere);
        this.leases = rules.get(0).algorithm().holdsLeases() ? new Leases(policyName, gateway) : null;
        // A lease (of concurrency, or a quota lease another node holds) may be given back long before
        // a denial's retry-after: a cached denial would deny what Redis admits.
        this.denyCache = localDenyCache && leases == null && !quotaLeases
                ? new LocalDenyCache(LOCAL_DENY_CACHE_SIZE, nanoClock) : null;
        this.quota = quotaLeases ? new QuotaLeases(rules.get(0), nanoClock) : null;
        // Denials remembered and quota lent under the old limit may no longer hold once it changes.
        this.inForce = new RulesInForce(policyName, rules, transport, gateway, adaptive, load, nanoClock, overrides,
                this::rulesChanged, evictions);
        this.evictions = evictions;
        this.delayRefusal = DelayRules.refusal(rules, transport, quotaLeases);
        this.accounting = new DecisionAccounting(policyName, listener, wallClock);
        this.refunds = new Refunds(policyName, rules, quotaLeases);
        FailurePolicy failurePolicy = onFailure.policy();
        this.flow = new DecisionFlow(inForce, failurePolicy, onFailure, denyCache, accounting, leases, quota);
        this.batches = new BatchDecisions(rules, transport, gateway, inForce, failurePolicy, onFailure, denyCache,
                accounting, keys::of);
        this.resets = new ClientResets(keys, gateway, onFailure, denyCache, quota, inForce, overrides);
        // After the warm-up, whose connections it finds ready; not after one Redis did not answer, which
        // would only cost the start another timeout (the first decision due reads it instead).
        if (!warmUp || LimiterWarmUp.run(policyName, gateway, inForce.last().evaluator, overrides, failurePolicy)) {
            evictions.checkIfDue();
        }
    }

    /** Each rule's cost. */
    public Decision acquire(String key) {
        return flow.acquire(key, keys.of(key), 0);
    }

    /** The caller's permits, checked against every rule's capacity first. */
    /** Each rule's cost, now or, over the limit, for the instant it frees up within maxDelay. */
    public Decision acquire(String key, Duration maxDelay) {
        DelayRules.checkCall(delayRefusal, maxDelay);
        return flow.acquire(key, keys.of(key), 0, maxDelay.toNanos() / 1000);
    }

    public Decision acquire(String key, long permits) {
        keys.checkPermits(permits);
        return flow.acquire(key, keys.of(key), permits);
    }

    /** Each rule's cost, each rule counting the client at the same index. */
    public Decision acquireEach(List<String> clientKeys) {
        checkOnePerRule(clientKeys, keys.rules());
        if (onFailure.policy() == FailurePolicy.LOCAL) {
            throw new IllegalStateException("onRedisFailure=local limits one client per decision; policy '"
                    + policyName + "' decides one client per rule: use allow or deny");
        }
        return flow.acquire(String.join(" + ", clientKeys), keys.ofEach(clientKeys), 0);
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
            Decision decision = flow.acquire(key, redisKeys, permits);
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

    public Map<String, Decision> acquireAll(Map<String, Long> permitsByKey) {
        refuseLeasesInBatches();
        return batches.tryAcquireAll(permitsByKey);
    }

    public List<Decision> acquireAll(List<String> clientKeys) {
        refuseLeasesInBatches();
        return batches.tryAcquireAll(clientKeys);
    }

    /** @throws IllegalArgumentException unless {@code clientKeys} holds one key per rule */
    public static void checkOnePerRule(List<String> clientKeys, int rules) {
        if (clientKeys == null || clientKeys.size() != rules) {
            throw new IllegalArgumentException("clientKeys must hold one key per rule (" + rules + "), but was "
                    + clientKeys);
        }
    }

    /** A batch holds no leases: each admission of concurrency needs its own, released by its own request. */
    private void refuseLeasesInBatches() {
        if (leases != null) {
            throw new UnsupportedOperationException("batches take no leases, but policy '" + policyName
                    + "' uses algorithm concurrency: decide each request with tryAcquire and release it");
        }
    }

    public Decision peek(String key) {
        return flow.peek(key, keys.of(key));
    }

    /** Each rule's client's state without taking anything, each rule reading the client at its index. */
    public Decision peekEach(List<String> clientKeys) {
        checkOnePerRule(clientKeys, keys.rules());
        return flow.peek(String.join(" + ", clientKeys), keys.ofEach(clientKeys));
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
     * A node reset some client: the denials remembered here and the quota lent here may be that
     * client's, and no longer hold. Which client is not known, so all go; Redis answers again.
     */
    private void clientResetSomewhere() {
        if (denyCache != null) {
            denyCache.forget("");
        }
        if (quota != null) {
            quota.dropAll();
        }
    }

    private void rulesChanged() {
        if (denyCache != null) {
            denyCache.forget("");
        }
        if (quota != null) {
            quota.settleAll();
        }
    }

    /**
     * Ends every quota lease this node holds and gives back what it did not use, a pipeline at a
     * time; a failure leaves the rest counted until their window frees them. For a node that stops.
     *
     * @return how many leases gave something back
     */
    public int giveBackLeases() {
        if (quota == null) {
            return 0;
        }
        quota.settleAll();
        int back = 0;
        try {
            List<Receipt> batch;
            while (!(batch = quota.takeUnused(GIVE_BACK_BATCH)).isEmpty()) {
                back += ((LuaEvaluator) inForce.last().evaluator).giveBackAll(batch);
            }
        } catch (RuntimeException e) {
            LimiterLog.LOG.warn("Rate limit quota leases could not all be given back; they stay counted until their "
                    + "window passes: {}", e.toString());
        }
        return back;
    }

    /** Clients this node holds a quota lease for (or saw lately), 0 without leases. */
    public int quotaLeases() {
        return quota == null ? 0 : quota.size();
    }

    public void release(Decision decision) {
        if (leases != null) {
            leases.release(decision);
        }
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
