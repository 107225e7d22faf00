package dev.ratelimit.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.claim.Receipt;
import dev.ratelimit.scripts.DecisionAccess;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives an admission's permits back ({@link RateLimiter#refund}), kept apart so that
 * {@link RateLimiter} reads as the decision path. A receipt is spent once, whether the refund
 * reached Redis or not: a refund that fails leaves the permits counted (the limiter then errs
 * toward denying, never toward admitting more), and is not retried, since it may have run.
 * Thread-safe.
 */
public final class Refunds {
    private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String policyName;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - FAILURE_LOG_INTERVAL_NANOS);

    public Refunds(String policyName) {
        this.policyName = policyName;
    }

    /**
     * @param keys the client's Redis keys, which must be the receipt's
     * @return whether something was given back
     */
    public boolean refund(List<String> keys, Decision decision) {
        Receipt receipt = DecisionAccess.receipt(decision);
        if (receipt == null) {
            return false;
        }
        if (!receipt.keys().equals(keys)) {
            throw new IllegalArgumentException("decision was not made for this key: its keys are " + receipt.keys()
                    + ", the key's are " + keys);
        }
        if (!receipt.claim()) {
            return false;
        }
        try {
            return receipt.giveBack();
        } catch (RedisFailureException e) {
            long count = failures.incrementAndGet();
            long now = System.nanoTime();
            long last = lastFailureLog.get();
            if (now - last >= FAILURE_LOG_INTERVAL_NANOS && lastFailureLog.compareAndSet(last, now)) {
                LimiterLog.LOG.warn("Rate limit policy '{}' cannot give permits back to Redis; they stay counted until their "
                        + "window or bucket frees them (refunds failed so far: {}): {}", policyName, count,
                        e.getMessage());
            }
            return false;
        }
    }
}
