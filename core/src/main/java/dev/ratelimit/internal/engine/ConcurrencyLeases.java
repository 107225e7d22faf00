package dev.ratelimit.internal.engine;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.internal.claim.ConcurrencyLease;
import dev.ratelimit.internal.claim.ConcurrencyLeaseIds;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.scripts.DecisionAccess;
import dev.ratelimit.internal.scripts.Evaluator;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.internal.support.LogThrottle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The concurrency leases of a {@link Algorithm#CONCURRENCY} limiter: as its evaluation, an admission
 * records a fresh lease in Redis and holds it (batches take none: refused first); {@link #release}
 * gives it back once the request ends, a no-op for a decision holding none. A release never throws:
 * a request that has ended must not fail because Redis did, and the lease it could not give back
 * expires by itself after the rule's window. Such failures are counted and logged at most every few
 * seconds, like the limiter's others. Thread-safe.
 */
public final class ConcurrencyLeases extends Evaluation {
    private final String policyName;
    private final ConcurrencyLeaseIds ids = new ConcurrencyLeaseIds();
    private final AtomicLong failures = new AtomicLong();
    private final LogThrottle failureLog = new LogThrottle(5, TimeUnit.SECONDS);

    ConcurrencyLeases(String policyName, RedisGateway gateway, DecisionAccounting accounting) {
        super(gateway, accounting);
        this.policyName = policyName;
    }

    @Override
    Decision ask(Call call, Evaluator evaluator) {
        if (!call.consume) {
            return super.ask(call, evaluator);
        }
        String lease = ids.next();
        Decision decision = evaluator.decide(call.redisKeys, call.permits, true, lease);
        return decision.allowed() && !decision.degraded()
                ? DecisionAccess.get().withLease(decision, new ConcurrencyLease(call.redisKeys, lease)) : decision;
    }

    public void release(Decision decision) {
        ConcurrencyLease lease = decision == null ? null : DecisionAccess.get().lease(decision);
        if (lease == null || !lease.release()) {
            return;
        }
        try {
            LuaEvaluator.release(gateway, lease.keys, lease.id);
        } catch (RuntimeException e) {
            // RedisFailureException above all; whatever it is, the lease's timeout frees it.
            long count = failures.incrementAndGet();
            if (failureLog.due()) {
                LimiterLog.LOG.warn("Rate limit policy '{}' could not release a lease in Redis; it stays in flight until its "
                        + "window passes (release failures so far: {}): {}", policyName, count, e.toString());
            }
        }
    }
}
