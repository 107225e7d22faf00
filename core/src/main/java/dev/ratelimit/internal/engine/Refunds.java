package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.rules.ChargeRules;
import dev.ratelimit.internal.scripts.DecisionAccess;
import dev.ratelimit.internal.support.LogThrottle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Settles an admission after the work it admitted: gives its permits back ({@link RateLimiter#refund})
 * or charges its real cost ({@link RateLimiter#charge}), kept apart so that {@link RateLimiter} reads
 * as the decision path. A receipt is spent once, whether the call reached Redis or not: a refund
 * that fails leaves the permits counted (the limiter then errs toward denying, never toward
 * admitting more), a charge that fails leaves what the admission took; neither is retried, since it
 * may have run. A settlement that changed the client's state makes every stage forget its
 * remembered denials: they may no longer hold, and a denial must never refuse what Redis would
 * allow. Thread-safe.
 */
public final class Refunds {
    private final ClientKeys keys;
    /** The decision's stages: each forgets the denials it remembers of a client settled. */
    private final Stage chain;
    private final AtomicLong failures = new AtomicLong();
    /** At most one failure line per few seconds, refunds and charges together. */
    private final LogThrottle failureLog = new LogThrottle(5, TimeUnit.SECONDS);
    /** After-charges that took permits past the admission's, and those permits. */
    private final AtomicLong charges = new AtomicLong();
    private final AtomicLong permitsCharged = new AtomicLong();
    private final AtomicLong chargeFailures = new AtomicLong();
    /**
     * Give-backs Redis answered but applied nothing of: their permits had left the client's state
     * (a window passed, a reset, a restart), or could not be placed exactly (refund.lua), so they
     * stay taken until the state frees them.
     */
    private final AtomicLong kept = new AtomicLong();
    /** Why the limiter's rules cannot be charged (ChargeRules), or null. */
    private final String chargeConflict;

    /** @param quotaLeases whether the limiter lends quota: then it refuses every charge ({@link ChargeRules}) */
    Refunds(ClientKeys keys, Stage chain, boolean quotaLeases) {
        this.keys = keys;
        this.chain = chain;
        this.chargeConflict = ChargeRules.conflict(keys.rules, quotaLeases);
    }

    public boolean refund(String key, Decision decision) {
        Receipt receipt = claim(keys.of(key), decision);
        if (receipt == null) {
            return false;
        }
        try {
            return settled(key, counted(receipt.giveBack()));
        } catch (RedisFailureException e) {
            long count = failures.incrementAndGet();
            if (failureLog.due()) {
                LimiterLog.LOG.warn("Rate limit policy '{}' cannot give permits back to Redis; they stay counted until their "
                        + "window or bucket frees them (refunds failed so far: {}): {}", keys.policyName, count,
                        e.getMessage());
            }
            return false;
        }
    }

    /** Gives back what the admission took beyond {@code usage}, or charges what usage passes it by (refund.lua). */
    public boolean charge(String key, Decision decision, long usage) {
        List<String> redisKeys = keys.of(key);
        if (chargeConflict != null) {
            throw new IllegalStateException("policy '" + keys.policyName + "' cannot charge usage: " + chargeConflict);
        }
        long capacity = keys.rules.get(0).capacity();
        if (usage < 0 || usage > capacity) {
            throw new IllegalArgumentException("usage must be between 0 and " + capacity
                    + " (the rule's capacity), but was " + usage);
        }
        Receipt receipt = claim(redisKeys, decision);
        if (receipt == null || usage == receipt.permits(0)) {
            return false;
        }
        long taken = receipt.permits(0);
        try {
            if (usage < taken) {
                return settled(key, counted(receipt.withPermits(taken - usage).giveBack()));
            }
            boolean charged = receipt.withPermits(usage - taken).charge();
            if (charged) {
                charges.incrementAndGet();
                permitsCharged.addAndGet(usage - taken);
            }
            return settled(key, charged);
        } catch (RedisFailureException e) {
            long count = chargeFailures.incrementAndGet();
            if (failureLog.due()) {
                LimiterLog.LOG.warn("Rate limit policy '{}' cannot charge a request's usage to Redis; the client keeps "
                        + "what its admission took (charges failed so far: {}): {}", keys.policyName, count, e.getMessage());
            }
            return false;
        }
    }

    /** Counts a give-back Redis applied nothing of. */
    private boolean counted(boolean givenBack) {
        if (!givenBack) {
            kept.incrementAndGet();
        }
        return givenBack;
    }

    /** Whether the client's state changed; if so, no stage remembers a denial of it that may no longer hold. */
    private boolean settled(String key, boolean changed) {
        if (changed) {
            chain.each(stage -> stage.forgetDenials(key));
        }
        return changed;
    }

    /** The receipt to settle, spent now; null when there is none or it was spent. */
    private static Receipt claim(List<String> keys, Decision decision) {
        Receipt receipt = DecisionAccess.get().receipt(decision);
        if (receipt == null) {
            return null;
        }
        if (!receipt.keys().equals(keys)) {
            throw new IllegalArgumentException("decision was not made for this key: its keys are " + receipt.keys()
                    + ", the key's are " + keys);
        }
        return receipt.claim() ? receipt : null;
    }

    /** In {@code RateLimiterStats}' order. */
    public long[] charges() {
        return new long[] {charges.get(), permitsCharged.get(), chargeFailures.get(), kept.get()};
    }
}
