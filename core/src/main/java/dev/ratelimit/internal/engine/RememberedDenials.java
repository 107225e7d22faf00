package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import java.time.Duration;

/**
 * Answers a denial the {@link LocalDenyCache} remembers for the client and cost, without Redis, and
 * remembers the denials the stages after it bring back. Never with leases of either kind: a lease
 * may be given back long before a denial's retry-after, and a remembered denial would then deny
 * what Redis admits. A delayed call is answered only by a denial longer than its wait.
 */
final class RememberedDenials extends Stage {
    private final LocalDenyCache<ClientCost> cache;
    private final DecisionAccounting accounting;

    RememberedDenials(LocalDenyCache<ClientCost> cache, DecisionAccounting accounting) {
        this.cache = cache;
        this.accounting = accounting;
    }

    @Override
    void decide(Calls calls) {
        boolean ask = false;
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            Decision denial = cache.get(call);
            if (denial != null && (call.maxDelayMicros == 0
                    || denial.retryAfter().compareTo(Duration.ofNanos(call.maxDelayMicros * 1000)) > 0)) {
                accounting.cachedDenial();
                call.decision = denial;
                call.cached = true;
            } else {
                ask = true;
            }
        }
        if (!ask) {
            return;
        }
        // Redis' retry-after runs from its script's instant, which comes after this, not from the reply.
        long askedAt = cache.now();
        next.decide(calls);
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            if (!call.cached && call.decision != null && !call.decision.allowed()) {
                // A key of its own: the cache must not hold on to the call, nor on to the caller's list.
                cache.put(call.kept(), call.decision, askedAt);
            }
        }
    }

    @Override
    void forgetDenials(String key) {
        cache.forget(denied -> key == null || denied.client.equals(key));
    }

    @Override
    void forgetAll(boolean rulesChanged) {
        cache.forget(denied -> true);
    }
}
