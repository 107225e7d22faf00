package dev.ratelimit.internal.engine;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.scripts.Evaluator;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.LatencySamples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A limiter's rules as they apply now, with the evaluator that decides them: the configured ones
 * (or, under a live {@link LiveOverrides override} of the limit, the configured ones at that limit),
 * and with adaptive limits those scaled to the JVM's load (recomputed at most once per second).
 * Whatever changes is swapped in whole, with a new evaluator. Thread-safe.
 */
public final class RulesInForce {
    private static final long ADAPTATION_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The rules in force, the evaluator that decides them and each rule's cost, as one value. */
    static final class Applied {
        final List<Rule> rules;
        final Evaluator evaluator;
        final long[] costs;
        final double factor;

        private Applied(List<Rule> rules, Evaluator evaluator, double factor) {
            this.rules = Immutable.copyOf(rules);
            this.evaluator = evaluator;
            this.costs = rules.stream().mapToLong(Rule::cost).toArray();
            this.factor = factor;
        }
    }

    private final String policyName;
    private final List<Rule> configured;
    /** The rules before adaptation: the configured ones, or those at the limit override. */
    private volatile List<Rule> base;
    private final LiveOverrides overrides;
    /** The store's eviction reading, due every few minutes: read on the decision path as the overrides are. */
    private final EvictionWatch evictions;
    /** Runs when an override changes the rules: denials remembered under the old limit may no longer hold. */
    private final Runnable onOverride;
    /** The limit override the base rules were made for (-1 for none). */
    private volatile long baseOverride = -1;
    private final Function<List<Rule>, Evaluator> evaluators;
    private final AdaptiveLimit adaptive;
    private final AdaptiveLimit.LoadSource load;
    private final LongSupplier nanoClock;
    private final AtomicLong nextAdaptation;
    private final LatencySamples admittedLatency = new LatencySamples(1024);
    private volatile Applied applied;

    /**
     * @param adaptive null when the configured rules always apply
     * @param load where adaptive limits read the CPU load; unused without them
     */
    RulesInForce(String policyName, List<Rule> configured, Function<List<Rule>, Evaluator> evaluators,
            AdaptiveLimit adaptive, AdaptiveLimit.LoadSource load, LongSupplier nanoClock, LiveOverrides overrides,
            Runnable onOverride, EvictionWatch evictions) {
        this.policyName = policyName;
        this.configured = Immutable.copyOf(configured);
        this.base = this.configured;
        this.overrides = overrides;
        this.evictions = evictions;
        this.onOverride = onOverride;
        this.evaluators = evaluators;
        this.adaptive = adaptive;
        this.load = load;
        this.nanoClock = nanoClock;
        this.nextAdaptation = new AtomicLong(nanoClock.getAsLong());
        this.applied = new Applied(configured, evaluators.apply(configured), 1);
    }

    /** The rules to decide with now, adapted first when they are due. */
    Applied current() {
        // One clock read and one volatile read per decision for each; Redis only once per interval and node.
        overrides.refreshIfDue();
        evictions.checkIfDue();
        long wanted = overrides.state().limit;
        if (wanted != baseOverride) {
            rebase(wanted);
        }
        adapt();
        return applied;
    }

    /** The rules as they were last applied, without adapting. */
    Applied last() {
        return applied;
    }

    public List<Rule> effectiveRules() {
        return applied.rules;
    }

    public double adaptiveFactor() {
        return applied.factor;
    }

    /**
     * How long until the limits may next be adapted (at most a second): before then they cannot
     * change. Zero without adaptive limits.
     */
    Duration untilNextAdaptation() {
        if (adaptive == null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, nextAdaptation.get() - nanoClock.getAsLong()));
    }

    /** How long an admitted request took to serve: adaptive limits watch its p90. */
    public void recordAdmittedLatency(Duration latency) {
        if (adaptive != null) {
            admittedLatency.record(latency.toNanos());
        }
    }

    /**
     * With adaptive limits, recomputes the factor at most once per second and, when the effective
     * limits change, swaps in an evaluator for the scaled rules (same names, so the same keys).
     */
    private void adapt() {
        if (adaptive == null) {
            return;
        }
        long now = nanoClock.getAsLong();
        long due = nextAdaptation.get();
        if (now - due < 0 || !nextAdaptation.compareAndSet(due, now + ADAPTATION_INTERVAL_NANOS)) {
            return;
        }
        double factor;
        List<Rule> scaled;
        try {
            factor = adaptive.factor(load.cpuLoad(), admittedLatency.percentileMicros(0.90));
            scaled = scaled(base, factor);
        } catch (RuntimeException e) {
            // Adaptation is an optimisation: whatever fails here, decisions go on under the rules in force.
            LimiterLog.LOG.warn("Rate limit policy '{}' cannot adapt its limits now; the limits in force stay: {}", policyName,
                    e.toString());
            return;
        }
        Applied last = applied;
        if (scaled.equals(last.rules)) {
            applied = new Applied(last.rules, last.evaluator, factor);
        } else {
            LimiterLog.LOG.info("Rate limit policy '{}' adapts its limits by {}: {}", policyName,
                    String.format(Locale.ROOT, "%.2f", factor), scaled);
            applied = new Applied(scaled, evaluators.apply(scaled), factor);
        }
    }

    /**
     * Takes the rules at a new limit override (or back to the configured ones), with the adaptive
     * factor last computed; a limit the rules cannot take (written into Redis by hand) is logged
     * and the rules stay as they are.
     */
    private synchronized void rebase(long wanted) {
        if (wanted == baseOverride) {
            return;
        }
        baseOverride = wanted;
        List<Rule> rules;
        try {
            rules = wanted > 0 ? atLimit(configured, wanted) : configured;
        } catch (IllegalArgumentException | IllegalStateException e) {
            LimiterLog.LOG.warn("Rate limit policy '{}' ignores the limit override in Redis; the rules in force stay: {}",
                    policyName, e.getMessage());
            return;
        }
        base = rules;
        double factor = applied.factor;
        List<Rule> now = adaptive != null ? scaled(rules, factor) : rules;
        applied = new Applied(now, evaluators.apply(now), factor);
        onOverride.run();
    }

    /**
     * The configured rule at an overridden limit, checked as a configured rule is (the same messages);
     * {@code gcra}'s burst scales in proportion, as tiers do. IllegalStateException if the rules take no override.
     */
    public static List<Rule> atLimit(List<Rule> configured, long limit) {
        if (configured.size() != 1) {
            throw new IllegalStateException("a limit override applies to a limiter of one rule, but this one has "
                    + configured.size() + ": " + configured);
        }
        Rule rule = configured.get(0);
        if (rule.algorithm().countsInUnits()) {
            throw new IllegalStateException("a limit override does not apply to " + rule.algorithm() + " (its stored "
                    + "tokens are counted in units of the configured rate); change its configuration instead");
        }
        Rule.Builder builder = atLimit(rule, limit);
        if (rule.algorithm().usesBurst() && rule.burst() != rule.limit()) {
            builder.burst(Math.max(1, (long) ((double) rule.burst() * limit / rule.limit())));
        }
        return Immutable.listOf(builder.cost(rule.cost()).build());
    }

    /** The rules scaled by the adaptive factor: each limit, and a bucket's burst, never below its floor. */
    private List<Rule> scaled(List<Rule> rules, double factor) {
        List<Rule> scaled = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            long capacity = adaptive.effectiveLimit(rule.capacity(), factor);
            Rule.Builder builder = atLimit(rule, adaptive.effectiveLimit(rule.limit(), factor));
            if (rule.algorithm().usesBurst()) {
                builder.burst(capacity);
            }
            scaled.add(builder.cost(Math.min(rule.cost(), capacity)).build());
        }
        return scaled;
    }

    /** The rule at another limit, its name and penalty kept; its burst and cost still to set. */
    private static Rule.Builder atLimit(Rule rule, long limit) {
        Rule.Builder builder = rule.calendar() != null ? Rule.calendar(limit, rule.calendar(), rule.timeZone())
                : Rule.builder(rule.algorithm(), limit, rule.window());
        return builder.name(rule.name()).penalty(rule.penalty());
    }
}
