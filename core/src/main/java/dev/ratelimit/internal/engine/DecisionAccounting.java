package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.scripts.DecisionAccess;
import dev.ratelimit.internal.support.LatencySamples;
import dev.ratelimit.internal.support.LogThrottle;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a limiter counts and tells: decisions handed out, Redis latency and failures, its
 * {@link DecisionListener}, and the failure log line (at most one per interval, so a dead Redis
 * does not flood the log). The first stage of the chain: it counts every decision handed out,
 * whoever made it; none when the call throws. The other stages count what they see through it. Thread-safe.
 */
public final class DecisionAccounting extends Stage {
    private static final int MOST_DENIED_SHOWN = 10;

    /** The last five minutes as this node saw them: per-second counts and the most denied keys. */
    public static final class Recent {
        /** The epoch second of the series' first entry. */
        public final long firstSecond;
        /** Per second, oldest first: allowed, denied and degraded ({@link ActivityRing#snapshot}). */
        public final long[][] series;
        /** The keys denied most and their denials, most denied first. */
        public final Map<String, Long> mostDenied = new LinkedHashMap<>();

        Recent(long firstSecond, long[][] series, List<DeniedKeys.Count> mostDenied) {
            this.firstSecond = firstSecond;
            this.series = series;
            for (DeniedKeys.Count each : mostDenied) {
                this.mostDenied.put(each.key, each.count);
            }
        }
    }

    private final String policyName;
    private final DecisionListener listener;
    private final AtomicLong allowed = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private final AtomicLong degraded = new AtomicLong();
    private final AtomicLong localCacheDenials = new AtomicLong();
    private final AtomicLong leaseAdmissions = new AtomicLong();
    private final AtomicLong penalties = new AtomicLong();
    private final AtomicLong penaltyDenials = new AtomicLong();
    private final AtomicLong delayedAdmissions = new AtomicLong();
    private final LatencySamples redisLatency = new LatencySamples(1024);
    private final AtomicLong redisFailures = new AtomicLong();
    private final AtomicLong redisRefusals = new AtomicLong();
    /** The refusal Redis answered last, with what to do; null once Redis decides again. */
    private volatile String refusal;
    /** The remedies logged so far: each kind of refusal is logged at ERROR once, not every few seconds. */
    private final Set<String> loggedRemedies = ConcurrentHashMap.newKeySet();
    /** The wall clock in milliseconds: recent activity is shown by the second and minute it happened. */
    private final LongSupplier wallClock;
    private final ActivityRing perSecond = new ActivityRing();
    private final DeniedKeys deniedKeys = new DeniedKeys();
    private final LogThrottle failureLog = new LogThrottle(5, TimeUnit.SECONDS);

    DecisionAccounting(String policyName, DecisionListener listener, LongSupplier wallClock) {
        this.policyName = policyName;
        this.wallClock = wallClock;
        this.listener = listener;
    }

    @Override
    void decide(Calls calls) {
        next.decide(calls);
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).decision == null) {
                return;
            }
        }
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            handedOut(call.key, call.decision, call.cached);
        }
    }

    /** @param cachedDenial whether the local deny cache answered it (counted by {@link #cachedDenial()}) */
    private void handedOut(String key, Decision decision, boolean cachedDenial) {
        (decision.allowed() ? allowed : denied).incrementAndGet();
        if (decision.degraded()) {
            degraded.incrementAndGet();
        }
        long now = wallClock.getAsLong();
        perSecond.record(Math.floorDiv(now, 1000L), decision.allowed(), decision.degraded());
        if (!decision.allowed()) {
            deniedKeys.record(now, RedisKeys.shownKey(key));
        }
        if (decision.delayed()) {
            delayedAdmissions.incrementAndGet();
        } else if (decision.penalized()) {
            penaltyDenials.incrementAndGet();
            if (!cachedDenial && DecisionAccess.get().opensPenalty(decision)) {
                penalties.incrementAndGet();
            }
        }
        listener.decided(key, decision, cachedDenial);
    }

    /** An admission made from a quota lease this node holds, without Redis. */
    void leaseAdmission() {
        leaseAdmissions.incrementAndGet();
    }

    /** A denial answered by the local deny cache, without Redis. */
    void cachedDenial() {
        localCacheDenials.incrementAndGet();
    }

    /** How long a Redis call that answered took. */
    void redisAnswered(long nanos) {
        redisLatency.record(nanos);
        listener.redisLatency(nanos);
        if (refusal != null) {
            refusal = null;
        }
    }

    /**
     * Counts a failure to ask Redis, tells the listener, and logs it: an outage, when a failure
     * policy will answer instead, at WARN at most once per interval; a refusal that waiting will not
     * cure ({@link RedisFailureException#remedy()}), counted apart, at ERROR once per kind with what
     * to do, whoever answers it.
     */
    void redisFailed(String key, RedisFailureException e, FailurePolicy failurePolicy) {
        listener.redisFailed(key, e);
        String remedy = e.remedy();
        if (remedy != null) {
            redisRefusals.incrementAndGet();
            // Built when the refusal begins or changes kind, not again for every request it refuses.
            String inForce = refusal;
            if (inForce != null && inForce.endsWith(remedy)) {
                return;
            }
            String what = withoutFullStop(String.valueOf(e.getMessage()));
            refusal = what + "; to fix: " + remedy;
            if (loggedRemedies.add(remedy)) {
                LimiterLog.LOG.error("Rate limit policy '{}': Redis refuses the limiter's commands, and waiting will not "
                        + "fix it: {}. To fix: {}. Until then {}", policyName, what, remedy,
                        failurePolicy == null ? "each call fails with this error"
                                : "onRedisFailure=" + failurePolicy + " decides every request");
            }
            return;
        }
        long failures = redisFailures.incrementAndGet();
        if (failurePolicy == null) {
            return;
        }
        if (failureLog.due()) {
            LimiterLog.LOG.warn("Rate limit policy '{}' {}; onRedisFailure={} decides (failures so far: {}): {}",
                    policyName, e.redisAnswered() ? "gets error replies from Redis" : "cannot reach Redis", failurePolicy,
                    failures, e.getMessage());
        }
    }

    /** Redis ends some replies with a full stop of its own; the log line adds its own punctuation. */
    private static String withoutFullStop(String message) {
        return message.replaceFirst("\\.+\\z", "");
    }

    /** The counts so far, in {@code RateLimiterStats}' order. */
    public long[] counts() {
        return new long[] {allowed.get(), denied.get(), degraded.get(), localCacheDenials.get(), leaseAdmissions.get(),
                penalties.get(), penaltyDenials.get(), delayedAdmissions.get(), redisFailures.get(), redisRefusals.get()};
    }

    public long redisFailures() {
        return redisFailures.get();
    }

    public String refusal() {
        return refusal;
    }

    public LatencySamples.Snapshot redisLatency() {
        return redisLatency.snapshot();
    }

    /** The last five minutes, as this node saw them. */
    public Recent recent() {
        long now = wallClock.getAsLong();
        long nowSecond = Math.floorDiv(now, 1000L);
        return new Recent(nowSecond - ActivityRing.SECONDS + 1, perSecond.snapshot(nowSecond),
                deniedKeys.top(now, MOST_DENIED_SHOWN));
    }
}
