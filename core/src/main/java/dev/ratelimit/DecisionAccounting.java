package dev.ratelimit;

import dev.ratelimit.internal.ActivityRing;
import dev.ratelimit.internal.DeniedKeys;
import dev.ratelimit.internal.Immutable;
import dev.ratelimit.internal.LatencySamples;
import dev.ratelimit.internal.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a limiter counts and tells: decisions handed out, Redis latency and failures, its
 * listeners, and the failure log line (at most one per interval, so a dead Redis does not flood
 * the log). Thread-safe.
 */
final class DecisionAccounting {
    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);
    private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int MOST_DENIED_SHOWN = 10;

    private final String policyName;
    private final List<RateLimitListener> listeners;
    private final AtomicLong allowed = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private final AtomicLong degraded = new AtomicLong();
    private final AtomicLong localCacheDenials = new AtomicLong();
    private final LatencySamples redisLatency = new LatencySamples(1024);
    private final AtomicLong redisFailures = new AtomicLong();
    /** The wall clock in milliseconds: recent activity is shown by the second and minute it happened. */
    private final LongSupplier wallClock;
    private final ActivityRing perSecond = new ActivityRing();
    private final DeniedKeys deniedKeys = new DeniedKeys();
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - FAILURE_LOG_INTERVAL_NANOS);

    DecisionAccounting(String policyName, List<RateLimitListener> listeners, LongSupplier wallClock) {
        this.policyName = policyName;
        this.wallClock = wallClock;
        this.listeners = Immutable.copyOf(listeners);
    }

    /**
     * Counts a handed-out decision and tells the listeners.
     *
     * @param cachedDenial whether the local deny cache answered it (counted by {@link #cachedDenial()})
     */
    void handedOut(String key, Decision decision, boolean cachedDenial) {
        (decision.allowed() ? allowed : denied).incrementAndGet();
        if (decision.degraded()) {
            degraded.incrementAndGet();
        }
        long now = wallClock.getAsLong();
        perSecond.record(Math.floorDiv(now, 1000L), decision.allowed(), decision.degraded());
        if (!decision.allowed()) {
            deniedKeys.record(now, RedisKeys.shownKey(key));
        }
        for (RateLimitListener listener : listeners) {
            try {
                listener.onDecision(policyName, key, decision, cachedDenial);
                if (decision.allowed()) {
                    listener.onAllowed(policyName, key, decision);
                } else {
                    listener.onDenied(policyName, key, decision);
                }
            } catch (RuntimeException e) {
                log.warn("Rate limit listener {} failed on policy '{}'", listener, policyName, e);
            }
        }
    }

    /** A denial answered by the local deny cache, without Redis. */
    void cachedDenial() {
        localCacheDenials.incrementAndGet();
    }

    /** How long a Redis call that answered took. */
    void redisAnswered(long nanos) {
        redisLatency.record(nanos);
        for (RateLimitListener listener : listeners) {
            try {
                listener.onRedisLatency(policyName, nanos);
            } catch (RuntimeException e) {
                log.warn("Rate limit listener {} failed on policy '{}'", listener, policyName, e);
            }
        }
    }

    /**
     * Counts a failure to ask Redis, tells the listeners, and, when a failure policy will answer
     * instead, logs it (rate-limited).
     */
    void redisFailed(String key, RedisFailureException e, FailurePolicy failurePolicy) {
        long failures = redisFailures.incrementAndGet();
        for (RateLimitListener listener : listeners) {
            try {
                listener.onFailure(policyName, key, e);
            } catch (RuntimeException listenerFailure) {
                log.warn("Rate limit listener {} failed on policy '{}'", listener, policyName, listenerFailure);
            }
        }
        if (failurePolicy == null) {
            return;
        }
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (now - last >= FAILURE_LOG_INTERVAL_NANOS && lastFailureLog.compareAndSet(last, now)) {
            log.warn("Rate limit policy '{}' cannot reach Redis; onRedisFailure={} decides (failures so far: {}): {}",
                    policyName, failurePolicy, failures, e.getMessage());
        }
    }

    long redisFailures() {
        return redisFailures.get();
    }

    RateLimiterStats stats(String circuitState) {
        LatencySamples.Snapshot latency = redisLatency.snapshot();
        return new RateLimiterStats(allowed.get(), denied.get(), degraded.get(), localCacheDenials.get(),
                redisFailures.get(), latency, circuitState);
    }

    /** The last five minutes, as this node saw them. */
    RecentActivity recentActivity() {
        long now = wallClock.getAsLong();
        long nowSecond = Math.floorDiv(now, 1000L);
        long[][] series = perSecond.snapshot(nowSecond);
        List<RecentActivity.DeniedKey> mostDenied = new ArrayList<>();
        for (DeniedKeys.Count count : deniedKeys.top(now, MOST_DENIED_SHOWN)) {
            mostDenied.add(new RecentActivity.DeniedKey(count.key, count.count));
        }
        return new RecentActivity(nowSecond - ActivityRing.SECONDS + 1, series[0], series[1], series[2], mostDenied);
    }
}
