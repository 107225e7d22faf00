package dev.ratelimit.internal.http.settings;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterBuilder;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.http.client.Tiers;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import dev.ratelimit.internal.http.trace.TracingBinding;
import dev.ratelimit.internal.rules.LocalRules;
import dev.ratelimit.internal.rules.PenaltyRules;
import dev.ratelimit.internal.rules.QuotaLeaseRules;
import dev.ratelimit.internal.rules.TransactionRules;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The limiters an HTTP policy runs, built alike from its settings: one for its rule (or its
 * {@code limits} entries, decided together) and one per tier, each with the {@code metrics}
 * listener when asked for; and whether their counters are published as a JMX bean. It reads the
 * settings of how a limiter decides ({@code transport}, {@code onRedisFailure}, {@code localLimit},
 * {@code localDenyCache}, {@code leases}, {@code adaptive}, ...) and checks them against the rules
 * when the policy is read. Immutable; each call builds new limiters.
 */
public final class PolicyLimiters {
    private final String policyName;
    private final String keyPrefix;
    /** The rule; with {@code limits}, the first entry's. */
    private final Rule rule;
    /** Every rule: the rule, or one per {@code limits} entry. */
    private final List<Rule> rules;
    private final Transport transport;
    private final FailurePolicy failurePolicy;
    /** With {@code onRedisFailure=local}, the limit each node applies alone; otherwise null. */
    private final Long localLimit;
    private final boolean localDenyCache;
    private final boolean leases;
    private final boolean jmx;
    private final AdaptiveLimit adaptive;
    /** {@code metrics=micrometer}: what makes each limiter's listener; null for {@code none}. */
    private final MetricsBinding metrics;
    /** {@code tracing=opentelemetry}: the policy's one trace, heard by each of its limiters; null for {@code none}. */
    private final DecisionTrace trace;
    /** Each tier's rule: the policy's rule at the tier's limit. */
    private final Map<String, Rule> tierRules;

    /** The limiter's own cross-checks run now, rather than when the first request comes. */
    PolicyLimiters(PolicyReader in, String policyName, List<Rule> rules, Tiers tiers) {
        this.policyName = policyName;
        this.rules = Immutable.copyOf(rules);
        this.rule = rules.get(0);
        this.transport = in.get(Settings.TRANSPORT);
        this.failurePolicy = in.get(Settings.ON_REDIS_FAILURE);
        this.localLimit = localLimit(in, failurePolicy, rule);
        this.localDenyCache = in.get(Settings.LOCAL_DENY_CACHE);
        this.leases = in.get(Settings.LEASES);
        this.jmx = in.get(Settings.JMX);
        this.metrics = MetricsBinding.of(in.get(Settings.METRICS), in.label(Settings.METRICS), in.classLoader());
        this.trace = trace(in, policyName);
        this.adaptive = adaptive(in);
        this.keyPrefix = RedisKeys.checkKeyPart("keyPrefix", in.get(Settings.KEY_PREFIX), 0, RateLimiter.MAX_NAME_LENGTH);
        if (transport == Transport.TRANSACTION) {
            TransactionRules.check(rules);
        }
        if (adaptive != null) {
            AdaptiveLimit.checkApplies(rules);
        }
        if (leases) {
            QuotaLeaseRules.check(rules, transport, adaptive);
        }
        PenaltyRules.check(rules, transport, leases, failurePolicy);
        this.tierRules = tierRules(rule, tiers);
    }

    /** {@code adaptive} and {@code adaptiveLatency}: null when limits do not adapt. */
    private static AdaptiveLimit adaptive(PolicyReader in) {
        int floorPercent = in.get(Settings.ADAPTIVE);
        Setting<?> latency = Settings.ADAPTIVE_LATENCY;
        if (floorPercent == 0) {
            if (in.text(latency) != null) {
                String adaptive = in.text(Settings.ADAPTIVE);
                throw new IllegalArgumentException(in.label(latency) + " needs adaptive limits on, but "
                        + in.label(Settings.ADAPTIVE) + " is '" + (adaptive == null ? "off" : adaptive) + "'");
            }
            return null;
        }
        AdaptiveLimit adaptive = AdaptiveLimit.floor(floorPercent / 100.0);
        return in.text(latency) == null ? adaptive : adaptive.latencyTarget(in.get(Settings.ADAPTIVE_LATENCY));
    }

    /**
     * {@code tracing} and {@code tracingSpan}: null for {@code tracing=none}, where a {@code tracingSpan}
     * would be ignored, so it is refused (a typo, or a forgotten {@code tracing}).
     */
    private static DecisionTrace trace(PolicyReader in, String policyName) {
        String kind = in.get(Settings.TRACING);
        boolean ownSpan = in.get(Settings.TRACING_SPAN);
        TracingBinding tracing = TracingBinding.of(kind, ownSpan, in.label(Settings.TRACING), in.classLoader());
        if (tracing == null && in.text(Settings.TRACING_SPAN) != null) {
            throw new IllegalArgumentException(in.label(Settings.TRACING_SPAN) + " applies only with "
                    + "tracing=opentelemetry, but " + in.label(Settings.TRACING) + " is '" + kind + "' (tracingSpan was '"
                    + in.text(Settings.TRACING_SPAN) + "')");
        }
        return tracing == null ? null : tracing.forPolicy(policyName);
    }

    /**
     * {@code localLimit}, checked against the rule: the rule's limit unless set, null unless
     * {@code onRedisFailure=local}, and refused without it (a value that would be ignored is a typo).
     */
    private static Long localLimit(PolicyReader in, FailurePolicy failurePolicy, Rule rule) {
        Setting<Long> setting = Settings.LOCAL_LIMIT;
        Long localLimit = in.get(setting);
        if (failurePolicy != FailurePolicy.LOCAL) {
            if (localLimit != null) {
                throw new IllegalArgumentException(in.label(setting) + " applies only with onRedisFailure=local, but "
                        + in.label(Settings.ON_REDIS_FAILURE) + " is '" + failurePolicy + "' (localLimit was '"
                        + in.text(setting) + "')");
            }
            return null;
        }
        long value = localLimit != null ? localLimit : rule.limit();
        LocalRules.scale(Immutable.listOf(rule), value);
        return value;
    }

    Transport transport() {
        return transport;
    }

    boolean leases() {
        return leases;
    }

    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    public Long localLimit() {
        return localLimit;
    }

    public boolean localDenyCache() {
        return localDenyCache;
    }

    /** Whether limits adapt to load: then the pipeline reports how long admitted requests took. */
    public boolean adaptive() {
        return adaptive != null;
    }

    public DecisionTrace trace() {
        return trace;
    }

    public boolean jmx() {
        return jmx;
    }

    /** A limiter for this policy over the given Redis (without the listener of {@code metrics}, nor a warm-up). */
    public RateLimiter newLimiter(RedisStore store) {
        return newLimiter(store, policyName, rule, localLimit, null, false);
    }

    /**
     * A limiter for this policy, with the listener {@code metrics} asks for, which is added to
     * {@code bound} to be closed (its meters removed) with the policy; Redis is readied for its
     * first requests ({@link RateLimiterBuilder#warmUp(boolean)}). The tiers' limiters share its
     * connections and its script, and read their overrides with their first request.
     */
    public RateLimiter newLimiter(RedisStore store, String webapp, List<AutoCloseable> bound) {
        return newLimiter(store, policyName, rule, localLimit, metricsListener(webapp, bound), true);
    }

    private RateLimitListener metricsListener(String webapp, List<AutoCloseable> bound) {
        if (metrics == null) {
            return null;
        }
        RateLimitListener listener = metrics.listener(webapp);
        if (listener instanceof AutoCloseable) {
            bound.add((AutoCloseable) listener);
        }
        return listener;
    }

    /**
     * A limiter per tier, in the listed order: the policy's rule at the tier's limit, under the
     * policy name {@code <policyName>.<tier>}, so each tier counts in keys of its own (a bucket's
     * stored tokens are in units of its rate, and a client whose tier changes starts afresh); each
     * with its {@code metrics} listener added to {@code bound}.
     */
    public Map<String, RateLimiter> newTierLimiters(RedisStore store, String webapp, List<AutoCloseable> bound) {
        Map<String, RateLimiter> limiters = new LinkedHashMap<>();
        tierRules.forEach((tier, tierRule) -> limiters.put(tier, newLimiter(store, policyName + "." + tier, tierRule,
                localLimit == null ? null : Math.max(1, localLimit * tierRule.limit() / rule.limit()),
                metricsListener(webapp, bound), false)));
        return limiters;
    }

    private RateLimiter newLimiter(RedisStore store, String name, Rule limit, Long local, RateLimitListener listener,
            boolean warmUp) {
        RateLimiterBuilder builder = RateLimiter.builder(store).policyName(name).keyPrefix(keyPrefix).warmUp(warmUp);
        if (listener != null) {
            builder.listener(listener);
        }
        if (trace != null) {
            builder.listener(trace);
        }
        for (Rule each : limit == rule ? rules : Immutable.listOf(limit)) {
            builder.rule(each);
        }
        builder.transport(transport).onRedisFailure(failurePolicy).localDenyCache(localDenyCache).leases(leases)
                .adaptive(adaptive);
        if (local != null) {
            builder.localLimit(local);
        }
        return builder.build();
    }

    /** The rule at each tier's limit; a bucket's burst scales in the same proportion (at least 1). */
    private static Map<String, Rule> tierRules(Rule rule, Tiers tiers) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        tiers.limits().forEach((tier, limit) -> {
            Rule.Builder builder = rule.calendar() != null ? Rule.calendar(limit, rule.calendar(), rule.timeZone())
                    : Rule.builder(rule.algorithm(), limit, rule.window());
            if (rule.algorithm().usesBurst() && rule.burst() != rule.limit()) {
                builder.burst(Math.max(1, (long) ((double) rule.burst() * limit / rule.limit())));
            }
            rules.put(tier, builder.cost(rule.cost()).penalty(rule.penalty()).build());
        });
        return Collections.unmodifiableMap(rules);
    }

    /** Its part of the policy's startup line: {@code transport lua, onRedisFailure allow, ...}. */
    @Override
    public String toString() {
        return "transport " + transport + ", onRedisFailure " + failurePolicy
                + (localLimit == null ? "" : ", localLimit " + localLimit)
                + ", localDenyCache " + (leases && localDenyCache ? "off (leases)" : localDenyCache) + (leases ? ", leases true" : "")
                + ", jmx " + jmx + (metrics == null ? "" : ", metrics " + metrics) + (trace == null ? "" : ", tracing " + trace)
                + (adaptive == null ? "" : ", " + adaptive) + ", keyPrefix '" + keyPrefix + "'";
    }
}
