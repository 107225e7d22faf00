package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.scripts.Evaluator;
import java.util.List;

/**
 * Admits a client from the quota lease this node holds for it, without Redis ({@link QuotaLeases});
 * never denies. A batch is never lent to: it goes to Redis whole, in one pipeline. First in the
 * chain after the accounting, so a leased admission costs no more than a map lookup.
 */
final class QuotaLeaseAdmission extends Stage {
    /** Unused lease parts given back in one pipeline when a node stops. */
    private static final int GIVE_BACK_BATCH = 256;

    private final QuotaLeases quota;
    private final DecisionAccounting accounting;

    QuotaLeaseAdmission(QuotaLeases quota, DecisionAccounting accounting) {
        this.quota = quota;
        this.accounting = accounting;
    }

    @Override
    void decide(Calls calls) {
        if (!calls.batch()) {
            Call call = calls.get(0);
            Decision leased = quota.admit(call.redisKeys.get(0), call.permits[0]);
            if (leased != null) {
                accounting.leaseAdmission();
                call.decision = leased;
                return;
            }
        }
        next.decide(calls);
    }

    /** Forgets the client's lease without giving it back: its keys go, and a permit given back into its fresh state would count twice. */
    @Override
    void forgetClient(String redisKey) {
        quota.forget(redisKey);
    }

    /** Changed rules end the leases (their rests go back); a reset elsewhere drops them, as {@link #forgetClient}. */
    @Override
    void forgetAll(boolean rulesChanged) {
        if (rulesChanged) {
            quota.settleAll();
        } else {
            quota.dropAll();
        }
    }

    /** A pipeline at a time; a failure leaves the rest counted until their window frees them. */
    @Override
    int giveBack(Evaluator evaluator) {
        quota.settleAll();
        int back = 0;
        try {
            List<Receipt> batch;
            while (!(batch = quota.takeUnused(GIVE_BACK_BATCH)).isEmpty()) {
                back += evaluator.giveBackAll(batch);
            }
        } catch (RuntimeException e) {
            LimiterLog.LOG.warn("Rate limit quota leases could not all be given back; they stay counted until their "
                    + "window passes: {}", e.toString());
        }
        return back;
    }
}
