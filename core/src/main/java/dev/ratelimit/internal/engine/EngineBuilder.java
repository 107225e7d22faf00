package dev.ratelimit.internal.engine;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.local.LocalDenyCache;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.support.Immutable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Assembles a limiter's engine once, from what the API's builder checked: its parts, and the
 * decision's {@link Stage}s in their order ({@link #stages}). A feature not configured is a stage
 * not there, so no stage asks whether it applies. A new stage is its class and its place there.
 */
public final class EngineBuilder {
    final String policyName;
    final ClientKeys keys;
    final List<Rule> rules;
    final Transport transport;
    final RedisGateway gateway;
    /** The store's watch on its Redis's eviction settings, read now when due, then by decisions. */
    final EvictionWatch evictions;
    /** The failure policy; null to throw. */
    public FailurePolicy failurePolicy;
    /** The rules at their local limit, for {@link FailurePolicy#LOCAL}; else ignored. */
    public List<Rule> localRules;
    /** Whether to remember denials in the JVM: never with leases of either kind. */
    public boolean denyCache = true;
    /** Whether to lend busy clients quota ahead of use ({@code LeaseRules}, checked by the caller). */
    public boolean quotaLeases;
    /** Null when the configured rules always apply; then {@link #load} is unused. */
    public AdaptiveLimit adaptive;
    public AdaptiveLimit.LoadSource load;
    public DecisionListener listener = DecisionListener.NONE;
    public LongSupplier nanoClock = System::nanoTime;
    public LongSupplier wallClock = System::currentTimeMillis;
    /** Whether to ready Redis for the first decisions before returning ({@link LimiterWarmUp}). */
    public boolean warmUp;
    // Assembled by build(), for the engine to take.
    DecisionAccounting accounting;
    LiveOverrides overrides;
    RulesInForce inForce;
    FailureAnswer onFailure;
    ConcurrencyLeases concurrencyLeases;

    /** The parts every engine has; the rest are public fields, set before {@link #build}. */
    public EngineBuilder(String keyPrefix, String policyName, List<Rule> rules, Transport transport,
            RedisGateway gateway, EvictionWatch evictions) {
        this.policyName = policyName;
        this.rules = Immutable.copyOf(rules);
        this.keys = new ClientKeys(keyPrefix, policyName, rules);
        this.transport = transport;
        this.gateway = gateway;
        this.evictions = evictions;
    }

    public DecisionEngine build() {
        DecisionAccounting first = accounting = new DecisionAccounting(policyName, listener, wallClock);
        // The accounting is the chain's first stage: these tell every stage, linked by the time they run.
        overrides = new LiveOverrides(keys.prefix(), policyName, gateway, OverridesExchange.of(transport, gateway),
                limit -> RulesInForce.atLimit(rules, limit), nanoClock, () -> first.each(s -> s.forgetAll(false)));
        inForce = new RulesInForce(policyName, rules, transport, gateway, adaptive, load, nanoClock, overrides,
                () -> first.each(s -> s.forgetAll(true)), evictions);
        onFailure = new FailureAnswer(failurePolicy, rules, localRules, nanoClock, wallClock, accounting);
        concurrencyLeases = new ConcurrencyLeases(policyName, gateway, accounting);
        List<Stage> stages = stages();
        for (int i = 1; i < stages.size(); i++) {
            stages.get(i - 1).next = stages.get(i);
        }
        return new DecisionEngine(this);
    }

    /**
     * The decision's stages, first to last: the accounting; a quota lease held here; a remembered
     * denial; permits over a scaled-down capacity; the failure policy's answer; the evaluation, the
     * one stage that writes to Redis.
     */
    private List<Stage> stages() {
        boolean concurrency = rules.get(0).algorithm().holdsLeases();
        QuotaLeases quota = quotaLeases ? new QuotaLeases(rules.get(0), nanoClock) : null;
        List<Stage> stages = new ArrayList<>(6);
        stages.add(accounting);
        if (quota != null) {
            stages.add(new QuotaLeaseAdmission(quota, accounting));
        } else if (denyCache && !concurrency) {
            stages.add(new RememberedDenials(new LocalDenyCache<>(DecisionEngine.LOCAL_DENY_CACHE_SIZE, nanoClock),
                    accounting));
        }
        stages.add(new OverCapacity(inForce));
        stages.add(onFailure);
        stages.add(quota != null ? new QuotaLeaseEvaluation(gateway, accounting, quota)
                : concurrency ? concurrencyLeases
                : new Evaluation(gateway, accounting));
        return stages;
    }
}
