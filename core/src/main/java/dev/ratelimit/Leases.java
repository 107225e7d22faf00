package dev.ratelimit;

import dev.ratelimit.internal.LeaseIds;
import dev.ratelimit.internal.LuaEvaluator;
import dev.ratelimit.internal.RedisGateway;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of a {@link Algorithm#CONCURRENCY} limiter: a fresh id for each acquire, and their
 * release. A release never throws: a request that has ended must not fail because Redis did, and
 * the lease it could not give back expires by itself after the rule's window. Such failures are
 * counted and logged at most every few seconds, like the limiter's others. Thread-safe.
 */
final class Leases {
    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String policyName;
    private final RedisGateway gateway;
    private final LeaseIds ids = new LeaseIds();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

    Leases(String policyName, RedisGateway gateway) {
        this.policyName = policyName;
        this.gateway = gateway;
    }

    /** An id no other acquire, on any node, uses. */
    String nextId() {
        return ids.next();
    }

    /** The admission, holding the lease recorded under the keys; any other decision as it is. */
    static Decision held(Decision decision, List<String> keys, String id) {
        return decision.allowed() && !decision.degraded() ? decision.withLease(new Lease(keys, id)) : decision;
    }

    void release(Decision decision) {
        Lease lease = decision == null ? null : decision.lease();
        if (lease == null || !lease.release()) {
            return;
        }
        try {
            LuaEvaluator.release(gateway, lease.keys, lease.id);
        } catch (RuntimeException e) {
            // RedisFailureException above all; whatever it is, the lease's timeout frees it.
            long count = failures.incrementAndGet();
            long now = System.nanoTime();
            long last = lastLog.get();
            if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
                log.warn("Rate limit policy '{}' could not release a lease in Redis; it stays in flight until its "
                        + "window passes (release failures so far: {}): {}", policyName, count, e.toString());
            }
        }
    }

    /** Releases that Redis could not take so far. */
    long failures() {
        return failures.get();
    }
}
