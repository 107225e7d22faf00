package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.rules.DelayRules;
import dev.ratelimit.internal.scripts.Evaluator;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.internal.scripts.TransactionEvaluator;
import dev.ratelimit.internal.support.EvictionFinding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One limiter's decision machinery behind {@code RateLimiter}, whose javadoc is the contract: its parts,
 * made once from an {@link EngineBuilder}'s checked settings and public where the API calls one directly.
 * Every decision, single or batch, runs the one chain of {@link Stage}s linked here ({@link #linkStages});
 * a peek enters it at the failure answer, as it takes nothing. Thread-safe.
 */
public final class DecisionEngine {
    public static final int LOCAL_DENY_CACHE_SIZE = 10_000;

    /** The policy's name, key prefix and rules, and each client's keys. */
    public final ClientKeys keys;
    public final Transport transport;
    /** The chain's first stage: it counts and tells every decision handed out. */
    public final DecisionAccounting accounting;
    public final LiveOverrides overrides;
    public final RulesInForce inForce;
    public final FailureAnswer onFailure;
    /** Releases a {@code concurrency} admission's lease; the evaluation of such a limiter too. */
    public final ConcurrencyLeases concurrencyLeases;
    public final Refunds refunds;
    public final BatchDecisions batches;
    public final ClientResets resets;
    private final RedisGateway gateway;
    /** The store's watch on its Redis's eviction settings, read now when due, then by decisions. */
    private final EvictionWatch evictions;
    private final String delayRefusal; // why these rules cannot delay a request (DelayRules.refusal), or null
    /** Held here because the gateway may hold it weakly: a limiter no longer used stops listening. */
    private final Runnable forgetOnFlush;

    /** @param localRules the rules at their local limit, for {@link FailurePolicy#LOCAL}; else ignored */
    DecisionEngine(EngineBuilder settings, List<Rule> localRules) {
        String policyName = settings.policyName;
        keys = new ClientKeys(settings.keyPrefix, policyName, settings.rules);
        List<Rule> rules = keys.rules;
        transport = settings.transport;
        gateway = settings.gateway;
        evictions = settings.evictions;
        DecisionAccounting first = accounting = new DecisionAccounting(policyName, settings.listener, settings.wallClock);
        // The accounting is the chain's first stage: these tell every stage, linked by the time they run.
        overrides = new LiveOverrides(keys.keyPrefix, policyName, OverridesExchange.of(transport, gateway),
                limit -> RulesInForce.atLimit(rules, limit), settings.nanoClock, () -> first.each(s -> s.forgetAll(false)));
        Function<List<Rule>, Evaluator> evaluators = transport == Transport.LUA
                ? each -> new LuaEvaluator(gateway, each) : each -> new TransactionEvaluator(gateway, each);
        inForce = new RulesInForce(policyName, rules, evaluators, settings.adaptive, settings.load, settings.nanoClock,
                overrides, () -> first.each(s -> s.forgetAll(true)), evictions);
        onFailure = new FailureAnswer(settings.failurePolicy, rules, localRules, settings.nanoClock, settings.wallClock,
                accounting);
        concurrencyLeases = new ConcurrencyLeases(policyName, gateway, accounting);
        linkStages(settings);
        delayRefusal = DelayRules.refusal(rules, transport, settings.quotaLeases);
        refunds = new Refunds(keys, accounting, settings.quotaLeases);
        batches = new BatchDecisions(keys, transport, inForce, accounting);
        resets = new ClientResets(keys, accounting, inForce, overrides);
        forgetOnFlush = this::redisFlushed;
        gateway.whenFlushed(forgetOnFlush);
        // After the warm-up, whose connections it finds ready; not after one Redis did not answer, which
        // would only cost the start another timeout (the first decision due reads it instead).
        if (!settings.warmUp || LimiterWarmUp.run(policyName, gateway, inForce.last().evaluator, overrides,
                onFailure.policy())) {
            evictions.checkIfDue();
        }
    }

    /**
     * Links the decision's stages, first to last, as ARCHITECTURE.md's "A decision" lists them. A feature not
     * configured is a stage not there, so no stage asks whether it applies; a new stage is its class and its place
     * here.
     */
    private void linkStages(EngineBuilder settings) {
        List<Rule> rules = keys.rules;
        boolean concurrency = rules.get(0).algorithm().holdsLeases();
        QuotaLeases quota = settings.quotaLeases ? new QuotaLeases(rules.get(0), settings.nanoClock) : null;
        List<Stage> stages = new ArrayList<>(6);
        stages.add(accounting);
        if (quota != null) {
            stages.add(new QuotaLeaseAdmission(quota, accounting));
        } else if (settings.denyCache && !concurrency) {
            stages.add(new RememberedDenials(new LocalDenyCache<>(LOCAL_DENY_CACHE_SIZE, settings.nanoClock), accounting));
        }
        stages.add(new OverCapacity(inForce));
        stages.add(onFailure);
        stages.add(quota != null ? new QuotaLeaseEvaluation(gateway, accounting, quota)
                : concurrency ? concurrencyLeases
                : new Evaluation(gateway, accounting));
        for (int i = 1; i < stages.size(); i++) {
            stages.get(i - 1).next = stages.get(i);
        }
    }

    /**
     * Redis lost every key (a test's reset of its in-JVM Redis): remembered denials and quota leases
     * go without giving anything back, as there is nothing left to give back to, and the overrides are
     * read again, so that the next decision is the one a fresh Redis would make.
     */
    private void redisFlushed() {
        accounting.each(stage -> stage.forgetAll(false));
        try {
            overrides.refresh();
        } catch (RuntimeException e) {
            LimiterLog.LOG.debug("Rate limit policy '{}' could not read its overrides after Redis was flushed: {}",
                    keys.policyName, e.toString());
        }
    }

    public Decision acquire(String key) {
        return decide(key, keys.of(key), 0, 0);
    }

    public Decision acquire(String key, Duration maxDelay) {
        DelayRules.checkCall(delayRefusal, maxDelay);
        return decide(key, keys.of(key), 0, maxDelay.toNanos() / 1000);
    }

    public Decision acquire(String key, long permits) {
        keys.checkPermits(permits);
        return decide(key, keys.of(key), permits, 0);
    }

    public Decision acquireEach(List<String> clientKeys) {
        checkOnePerRule(clientKeys);
        if (onFailure.policy() == FailurePolicy.LOCAL) {
            throw new IllegalStateException("onRedisFailure=local limits one client per decision; policy '"
                    + keys.policyName + "' decides one client per rule: use allow or deny");
        }
        // The list, not its text, names the buckets: keys that join alike are other clients.
        Call call = new Call(inForce.current(), String.join(" + ", clientKeys), clientKeys, keys.ofEach(clientKeys), 0, true);
        return decide(call, 0);
    }

    /** A degraded answer ends the wait; a local one is a true denial of this node and is waited out like Redis's. */
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
        return decide(new Call(inForce.current(), key, redisKeys, permits, true), maxDelayMicros);
    }

    private Decision decide(Call call, long maxDelayMicros) {
        call.maxDelayMicros = maxDelayMicros;
        accounting.decide(call);
        return call.answer();
    }

    private void checkOnePerRule(List<String> clientKeys) {
        if (clientKeys == null || clientKeys.size() != keys.rules.size()) {
            throw new IllegalArgumentException("clientKeys must hold one key per rule (" + keys.rules.size() + "), but was "
                    + clientKeys);
        }
    }

    public Decision peek(String key) {
        return peek(key, keys.of(key));
    }

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

    public int giveBackLeases() {
        int[] back = new int[1];
        accounting.each(stage -> back[0] += stage.giveBack(inForce.last().evaluator));
        return back[0];
    }

    /** Never asks Redis. */
    public EvictionFinding eviction() {
        return evictions.finding();
    }

    public String circuitState() {
        return gateway.circuitState();
    }
}
