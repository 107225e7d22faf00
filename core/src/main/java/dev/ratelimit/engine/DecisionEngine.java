package dev.ratelimit.engine;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.local.LocalDenyCache;
import dev.ratelimit.redis.RedisGateway;
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

    private final ClientKeys keys;
    private final RedisGateway gateway;
    private final FailureAnswer onFailure;
    private final LiveOverrides overrides;
    /** Null unless the rules hold leases ({@code concurrency}). */
    private final Leases leases;
    /** Null when denials are not remembered. */
    private final LocalDenyCache denyCache;
    private final RulesInForce inForce;
    private final DecisionAccounting accounting;
    private final Refunds refunds;
    private final DecisionFlow flow;
    private final BatchDecisions batches;

    /**
     * @param onFailure what a Redis failure gets: the failure policy, with the local limiter
     * @param localDenyCache whether to remember denials in the JVM (never with leases)
     * @param adaptive null when the configured rules always apply
     */
    public DecisionEngine(String policyName, ClientKeys keys, List<Rule> rules, Transport transport,
            RedisGateway gateway, FailureAnswer onFailure, boolean localDenyCache, AdaptiveLimit adaptive,
            AdaptiveLimit.LoadSource load, DecisionListener listener, LongSupplier nanoClock,
            LongSupplier wallClock) {
        this.keys = keys;
        this.gateway = gateway;
        this.onFailure = onFailure;
        this.overrides = new LiveOverrides(keys.prefix(), policyName, gateway,
                limit -> RulesInForce.atLimit(rules, limit), nanoClock);
        this.leases = rules.get(0).algorithm().holdsLeases() ? new Leases(policyName, gateway) : null;
        // A lease may be given back long before a denial's retry-after: a cached denial would deny
        // what Redis admits.
        this.denyCache = localDenyCache && leases == null ? new LocalDenyCache(LOCAL_DENY_CACHE_SIZE, nanoClock)
                : null;
        this.inForce = new RulesInForce(policyName, rules, transport, gateway, adaptive, load, nanoClock, overrides,
                denyCache == null ? () -> { } : () -> denyCache.forget(""));
        this.accounting = new DecisionAccounting(policyName, listener, wallClock);
        this.refunds = new Refunds(policyName);
        FailurePolicy failurePolicy = onFailure.policy();
        this.flow = new DecisionFlow(inForce, failurePolicy, onFailure, denyCache, accounting, leases);
        this.batches = new BatchDecisions(rules, transport, gateway, inForce, failurePolicy, onFailure, denyCache,
                accounting, keys::of);
    }

    /** Each rule's cost. */
    public Decision acquire(String key) {
        return flow.acquire(key, keys.of(key), 0);
    }

    /** The caller's permits, checked against every rule's capacity first. */
    public Decision acquire(String key, long permits) {
        keys.checkPermits(permits);
        return flow.acquire(key, keys.of(key), permits);
    }

    /** Each rule's cost, each rule counting the client at the same index. */
    public Decision acquireEach(List<String> clientKeys) {
        return flow.acquire(String.join(" + ", clientKeys), keys.ofEach(clientKeys), 0);
    }

    /**
     * Takes the permits, sleeping out each denial's retry-after, until admitted or until the next
     * wait would end past {@code maxWait}: then the last denial. A degraded answer ends the wait;
     * a local one is a true denial of this node and is waited out like Redis's.
     */
    public Decision acquireWaiting(String key, long permits, Duration maxWait) throws InterruptedException {
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
        return batches.tryAcquireAll(permitsByKey);
    }

    public List<Decision> acquireAll(List<String> clientKeys) {
        return batches.tryAcquireAll(clientKeys);
    }

    public Decision peek(String key) {
        return flow.peek(key, keys.of(key));
    }

    /** Forgets the client in Redis, in the local limiter and in the deny cache. */
    public void reset(String key) {
        List<String> redisKeys = keys.of(key);
        onFailure.forget(redisKeys.get(0));
        gateway.delete(redisKeys);
        forgetDenials(key);
    }

    public boolean refund(String key, Decision decision) {
        boolean back = refunds.refund(keys.of(key), decision);
        if (back) {
            // A denial remembered before the refund may no longer hold: never deny what Redis would allow.
            forgetDenials(key);
        }
        return back;
    }

    private void forgetDenials(String key) {
        if (denyCache != null) {
            denyCache.forget(key + '\n');
        }
    }

    /** Whether the rules hold leases, so that a batch (which takes none) must be refused. */
    public boolean holdsLeases() {
        return leases != null;
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

    /** The state of the Redis circuit breaker, as the gateway tells it. */
    public String circuitState() {
        return gateway.circuitState();
    }

    public List<String> redisKeys(String key) {
        return keys.of(key);
    }
}
