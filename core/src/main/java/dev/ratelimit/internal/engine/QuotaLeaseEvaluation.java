package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.scripts.Evaluator;
import java.util.List;

/**
 * The evaluation with quota leases: a round trip that may take a quota lease for the client (and
 * gives back unused parts of earlier ones), remembered with what Redis lent, so the client's next
 * requests are admitted here while it lasts ({@link QuotaLeaseAdmission}). One rule, so one key.
 */
final class QuotaLeaseEvaluation extends Evaluation {
    private final QuotaLeases quota;

    QuotaLeaseEvaluation(RedisGateway gateway, DecisionAccounting accounting, QuotaLeases quota) {
        super(gateway, accounting);
        this.quota = quota;
    }

    @Override
    Decision ask(Call call, Evaluator evaluator) {
        if (!call.consume) {
            return super.ask(call, evaluator);
        }
        String leaseKey = call.redisKeys.get(0);
        long ask = quota.ask(leaseKey);
        List<Receipt> unused = quota.takeUnused(QuotaLeases.RETURNS_PER_CALL);
        long epoch = quota.epoch();
        long sentAt = quota.now();
        Evaluator.Leased leased = evaluator.decideLeasing(call.redisKeys, call.permits, ask, quota.lifetimeMicros(), unused);
        if (leased.decision.allowed()) {
            quota.granted(leaseKey, leased.decision, leased.grant, sentAt, epoch);
        }
        return leased.decision;
    }
}
