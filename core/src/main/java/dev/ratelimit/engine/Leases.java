package dev.ratelimit.engine;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.claim.Lease;
import dev.ratelimit.claim.LeaseIds;
import dev.ratelimit.redis.RedisGateway;
import dev.ratelimit.scripts.DecisionAccess;
import dev.ratelimit.scripts.LuaEvaluator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leases of a {@link Algorithm#CONCURRENCY} limiter: a fresh id for each acquire, and their
 * release. A release never throws: a request that has ended must not fail because Redis did, and
 * the lease it could not give back expires by itself after the rule's window. Such failures are
 * counted and logged at most every few seconds, like the limiter's others. Thread-safe.
 */
public final class Leases {
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String policyName;
    private final RedisGateway gateway;
    private final LeaseIds ids = new LeaseIds();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

    public Leases(String policyName, RedisGateway gateway) {
        this.policyName = policyName;
        this.gateway = gateway;
    }

    /** An id no other acquire, on any node, uses. */
    public String nextId() {
        return ids.next();
    }

    /** The admission, holding the lease recorded under the keys; any other decision as it is. */
    public static Decision held(Decision decision, List<String> keys, String id) {
        return decision.allowed() && !decision.degraded()
                ? DecisionAccess.withLease(decision, new Lease(keys, id)) : decision;
    }

    public void release(Decision decision) {
        Lease lease = decision == null ? null : DecisionAccess.lease(decision);
        if (lease == null || !lease.release()) {
            return;
        }
        try {
            LuaEvaluator.release(gateway, lease.keys(), lease.id());
        } catch (RuntimeException e) {
            // RedisFailureException above all; whatever it is, the lease's timeout frees it.
            long count = failures.incrementAndGet();
            long now = System.nanoTime();
            long last = lastLog.get();
            if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
                LimiterLog.LOG.warn("Rate limit policy '{}' could not release a lease in Redis; it stays in flight until its "
                        + "window passes (release failures so far: {}): {}", policyName, count, e.toString());
            }
        }
    }

    /** Releases that Redis could not take so far. */
    public long failures() {
        return failures.get();
    }
}
