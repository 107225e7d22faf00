package dev.ratelimit.micrometer;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * A limiter's meters in a Micrometer {@link MeterRegistry}, tagged {@code webapp} and
 * {@code policy} (the limiter's policy name):
 *
 * <ul>
 *   <li>{@value #DECISIONS}, a counter per {@code outcome}: {@code allowed} and {@code denied} (by
 *       Redis), {@code degraded} (by {@code onRedisFailure}, allowed or denied, because Redis could not
 *       be asked), {@code cached_denial} (by the local deny cache, without Redis). Each decision counts
 *       once, so their sum is every decision;</li>
 *   <li>{@value #REDIS_LATENCY}, a timer of the Redis calls that answered a decision;</li>
 *   <li>{@value #BREAKER_STATE}, a gauge of the Redis circuit breaker: 0 closed, 1 half-open, 2 open;</li>
 *   <li>{@value #LEASE_ADMISSIONS}, a counter of the admissions made from quota leases this node
 *       holds, without Redis (each also counted as {@code allowed});</li>
 *   <li>{@value #PENALTY_DENIALS}, a counter of the denials by the penalty box (each also counted as
 *       {@code denied} or {@code cached_denial});</li>
 *   <li>{@value #DELAYED_ADMISSIONS}, a counter of the requests over the limit admitted for their turn
 *       ahead ({@code maxDelay}; each also counted as {@code allowed});</li>
 *   <li>{@value #AFTER_CHARGES} and {@value #PERMITS_CHARGED}, counters of the after-charges
 *       ({@code chargeAfter}) that took permits past their admission's, and of those permits;</li>
 *   <li>{@value #REDIS_EVICTING}, a gauge: 1 when Redis may evict the limiter's keys or evicted keys
 *       since start ({@link dev.ratelimit.RateLimiterStats#redisEviction()}), 0 when not, NaN while
 *       Redis has not said (its {@code maxmemory-policy} is unknown);</li>
 *   <li>{@value #REDIS_EVICTED_KEYS}, a gauge of the keys Redis evicted since start, NaN while
 *       unknown.</li>
 * </ul>
 *
 * <p>Prometheus shows them as {@code ratelimit_decisions_total}, {@code ratelimit_redis_latency_seconds},
 * {@code ratelimit_breaker_state}, {@code ratelimit_lease_admissions_total}, {@code ratelimit_redis_evicting}
 * and {@code ratelimit_redis_evicted_keys}. One instance per limiter, given to its builder:
 *
 * <pre>{@code
 * RateLimiterMetrics metrics = new RateLimiterMetrics(registry, "shop");
 * RateLimiter limiter = RateLimiter.builder(store).policyName("api").rule(rule).listener(metrics).build();
 * // when the limiter is no longer used:
 * metrics.close();
 * }</pre>
 *
 * <p>A servlet filter or {@code @RateLimited} method with {@code metrics=micrometer} gets one per
 * limiter over {@link Metrics#globalRegistry}, closed when the webapp stops. Thread-safe.
 */
public final class RateLimiterMetrics implements RateLimitListener, AutoCloseable {
    /** The counter of decisions, tagged {@code outcome}. */
    public static final String DECISIONS = "ratelimit.decisions";
    /** The timer of Redis calls. */
    public static final String REDIS_LATENCY = "ratelimit.redis.latency";
    /** The gauge of the circuit breaker. */
    public static final String BREAKER_STATE = "ratelimit.breaker.state";
    /** The counter of admissions from quota leases. */
    public static final String LEASE_ADMISSIONS = "ratelimit.lease.admissions";
    /** Admissions for an instant ahead ({@link dev.ratelimit.RateLimiterStats#delayedAdmissions()}). */
    public static final String DELAYED_ADMISSIONS = "ratelimit.delayed.admissions";
    /** Refusals by the penalty box ({@link dev.ratelimit.RateLimiterStats#penaltyDenials()}). */
    public static final String PENALTY_DENIALS = "ratelimit.penalty.denials";
    /** After-charges that took permits ({@link dev.ratelimit.RateLimiterStats#afterCharges()}). */
    public static final String AFTER_CHARGES = "ratelimit.after.charges";
    /** The permits after-charges took ({@link dev.ratelimit.RateLimiterStats#permitsCharged()}). */
    public static final String PERMITS_CHARGED = "ratelimit.after.charged.permits";
    /** The gauge of whether Redis may evict the limiter's keys. */
    public static final String REDIS_EVICTING = "ratelimit.redis.evicting";
    /** The gauge of the keys Redis evicted since start. */
    public static final String REDIS_EVICTED_KEYS = "ratelimit.redis.evicted.keys";

    private final MeterRegistry registry;
    private final String webapp;
    /** Per policy name: a listener normally hears one limiter, but nothing stops sharing it. */
    private final ConcurrentMap<String, PolicyMeters> byPolicy = new ConcurrentHashMap<>();
    private final List<Meter> gauges = new ArrayList<>();

    /** The meters of one policy, registered on its first event. */
    private final class PolicyMeters {
        final Counter allowed;
        final Counter denied;
        final Counter degraded;
        final Counter cachedDenial;
        final Timer redisLatency;

        PolicyMeters(String policy) {
            allowed = decisions(policy, "allowed");
            denied = decisions(policy, "denied");
            degraded = decisions(policy, "degraded");
            cachedDenial = decisions(policy, "cached_denial");
            redisLatency = Timer.builder(REDIS_LATENCY).description("Redis calls that answered a rate-limit decision")
                    .tag("webapp", webapp).tag("policy", policy).register(registry);
        }

        private Counter decisions(String policy, String outcome) {
            return Counter.builder(DECISIONS).description("rate-limit decisions by outcome")
                    .tag("webapp", webapp).tag("policy", policy).tag("outcome", outcome).register(registry);
        }

        List<Meter> all() {
            List<Meter> all = new ArrayList<>();
            all.add(allowed);
            all.add(denied);
            all.add(degraded);
            all.add(cachedDenial);
            all.add(redisLatency);
            return all;
        }
    }

    /**
     * @param registry where the meters go
     * @param webapp the {@code webapp} tag, e.g. the context path
     */
    public RateLimiterMetrics(MeterRegistry registry, String webapp) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.webapp = Objects.requireNonNull(webapp, "webapp");
    }

    /**
     * Meters in {@link Metrics#globalRegistry}: what {@code metrics=micrometer} binds, found by name
     * by the core.
     */
    public static RateLimiterMetrics globalRegistry(String webapp) {
        return new RateLimiterMetrics(Metrics.globalRegistry, webapp);
    }

    private PolicyMeters meters(String policy) {
        PolicyMeters meters = byPolicy.get(policy);
        return meters != null ? meters : byPolicy.computeIfAbsent(policy, PolicyMeters::new);
    }

    @Override
    public void onBuilt(RateLimiter limiter) {
        meters(limiter.policyName());
        // Held weakly by Micrometer: a limiter nobody uses any more reads as NaN, never kept alive.
        Gauge gauge = Gauge.builder(BREAKER_STATE, limiter, RateLimiterMetrics::breakerState)
                .description("Redis circuit breaker: 0 closed, 1 half-open, 2 open")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        // Read from the limiter's own count: the listener cannot tell a lease's admission from Redis's.
        FunctionCounter leaseAdmissions = FunctionCounter.builder(LEASE_ADMISSIONS, limiter,
                        each -> each.stats().leaseAdmissions())
                .description("rate-limit admissions from quota leases held by this node, without Redis")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        FunctionCounter delayedAdmissions = FunctionCounter.builder(DELAYED_ADMISSIONS, limiter,
                        each -> each.stats().delayedAdmissions())
                .description("rate-limit admissions of requests over the limit for their turn ahead (maxDelay)")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        FunctionCounter penaltyDenials = FunctionCounter.builder(PENALTY_DENIALS, limiter,
                        each -> each.stats().penaltyDenials())
                .description("rate-limit denials by the penalty box, the local deny cache's included")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        FunctionCounter afterCharges = FunctionCounter.builder(AFTER_CHARGES, limiter, each -> each.stats().afterCharges())
                .description("rate-limit charges after the response that took permits past their admission's")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        FunctionCounter permitsCharged = FunctionCounter.builder(PERMITS_CHARGED, limiter,
                        each -> each.stats().permitsCharged())
                .description("permits taken by rate-limit charges after the response, past their admissions'")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        // Read from the limiter's stats, which hold what Redis said last: a scrape never asks Redis.
        Gauge evicting = Gauge.builder(REDIS_EVICTING, limiter, RateLimiterMetrics::evicting)
                .description("1 when Redis may evict the limiter's keys (maxmemory-policy other than noeviction) or"
                        + " evicted keys since start, 0 when not, NaN while unknown")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        Gauge evictedKeys = Gauge.builder(REDIS_EVICTED_KEYS, limiter, RateLimiterMetrics::evictedKeys)
                .description("keys Redis evicted since start, every key of that Redis; NaN while unknown")
                .tag("webapp", webapp).tag("policy", limiter.policyName()).register(registry);
        synchronized (gauges) {
            gauges.add(gauge);
            gauges.add(leaseAdmissions);
            gauges.add(penaltyDenials);
            gauges.add(delayedAdmissions);
            gauges.add(afterCharges);
            gauges.add(permitsCharged);
            gauges.add(evicting);
            gauges.add(evictedKeys);
        }
    }

    @Override
    public void onDecision(String policyName, String key, Decision decision, boolean cachedDenial) {
        PolicyMeters meters = meters(policyName);
        if (cachedDenial) {
            meters.cachedDenial.increment();
        } else if (decision.degraded()) {
            meters.degraded.increment();
        } else {
            (decision.allowed() ? meters.allowed : meters.denied).increment();
        }
    }

    @Override
    public void onRedisLatency(String policyName, long nanos) {
        meters(policyName).redisLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    static double breakerState(RateLimiter limiter) {
        switch (limiter.stats().circuitBreakerState()) {
            case "OPEN": return 2;
            case "HALF_OPEN": return 1;
            default: return 0;
        }
    }

    static double evicting(RateLimiter limiter) {
        RateLimiterStats stats = limiter.stats();
        if (stats.redisEviction() != null) {
            return 1;
        }
        return "unknown".equals(stats.redisMaxmemoryPolicy()) ? Double.NaN : 0;
    }

    static double evictedKeys(RateLimiter limiter) {
        long evicted = limiter.stats().redisEvictedKeys();
        return evicted < 0 ? Double.NaN : evicted;
    }

    /**
     * Removes this instance's meters from the registry, so a webapp that stops leaves nothing behind
     * and one that starts again registers afresh.
     */
    @Override
    public void close() {
        List<Meter> meters = new ArrayList<>();
        for (PolicyMeters each : byPolicy.values()) {
            meters.addAll(each.all());
        }
        byPolicy.clear();
        synchronized (gauges) {
            meters.addAll(gauges);
            gauges.clear();
        }
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }

    @Override
    public String toString() {
        return "RateLimiterMetrics(" + webapp + ")";
    }
}
