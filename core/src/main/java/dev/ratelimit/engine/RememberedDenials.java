package dev.ratelimit.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.local.LocalDenyCache;
import java.time.Duration;
import java.util.List;

/**
 * Answers a denial the {@link LocalDenyCache} remembers for the client and cost, without Redis, and
 * remembers the denials the stages after it bring back. Never with leases of either kind: a lease
 * may be given back long before a denial's retry-after, and a remembered denial would then deny
 * what Redis admits. A delayed call is answered only by a denial longer than its wait.
 */
final class RememberedDenials extends Stage {
    private final LocalDenyCache cache;
    private final DecisionAccounting accounting;

    RememberedDenials(LocalDenyCache cache, DecisionAccounting accounting) {
        this.cache = cache;
        this.accounting = accounting;
    }

    @Override
    void decide(List<Call> calls) {
        boolean ask = false;
        for (Call call : calls) {
            // Sized once: compiled for Java 8, '+' would grow a 16-character builder for every request.
            call.cacheKey = new StringBuilder(call.key.length() + 21).append(call.key).append('\n')
                    .append(call.callerPermits).toString();
            Decision denial = cache.get(call.cacheKey);
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
        for (Call call : calls) {
            if (!call.cached && call.decision != null) {
                cache.put(call.cacheKey, call.decision, askedAt);
            }
        }
    }

    @Override
    void forgetDenials(String key) {
        cache.forget(key == null ? "" : key + '\n');
    }

    @Override
    void forgetAll(boolean rulesChanged) {
        cache.forget("");
    }
}
