package dev.ratelimit.internal.engine;

import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * A limiter's client resets ({@code RateLimiter.reset} and {@code resetEach}): what this node
 * lent against the client forgotten, its keys deleted in one call, its remembered denials
 * forgotten, then the reset marked for the other nodes. Kept apart from {@link DecisionEngine} so
 * that both ways of naming a client reset alike. Thread-safe.
 */
public final class ClientResets {
    private final ClientKeys keys;
    private final Stage chain;
    private final RulesInForce inForce;
    private final LiveOverrides overrides;

    ClientResets(ClientKeys keys, Stage chain, RulesInForce inForce, LiveOverrides overrides) {
        this.keys = keys;
        this.chain = chain;
        this.inForce = inForce;
        this.overrides = overrides;
    }

    public void reset(String key) {
        forget(keys.of(key));
        forgetDenials(key);
        overrides.markClientReset();
    }

    /** Forgets every denial this node remembers: one names all of a request's clients together, none picked out. */
    public void resetEach(List<String> clientKeys) {
        if (clientKeys == null || clientKeys.size() != keys.rules.size()) {
            throw new IllegalArgumentException("clientKeys must hold one key or null per rule (" + keys.rules.size()
                    + "), but was " + clientKeys);
        }
        List<String> redisKeys = new ArrayList<>(clientKeys.size());
        for (int i = 0; i < clientKeys.size(); i++) {
            if (clientKeys.get(i) != null) {
                redisKeys.add(keys.ofRule(i, clientKeys.get(i)));
            }
        }
        if (!redisKeys.isEmpty()) {
            forget(redisKeys);
        }
        forgetDenials(null);
        overrides.markClientReset();
    }

    /** Forgets the denials remembered for the client, of every cost (null: of every client): they may no longer hold. */
    private void forgetDenials(String key) {
        chain.each(stage -> stage.forgetDenials(key));
    }

    /**
     * Deletes one decision's keys and the first key's penalty box (had its rule a penalty now or
     * before), in one call, after what this node keeps beside them is forgotten (the local limiter's
     * count, the quota lease): the evaluator leaves a guard that no rest of a lease lent before, no
     * refund of an admission taken before passes, or it would land in the fresh state (refund.lua).
     */
    private void forget(List<String> redisKeys) {
        chain.each(stage -> stage.forgetClient(redisKeys.get(0)));
        List<String> withBox = new ArrayList<>(redisKeys);
        withBox.add(RedisKeys.penaltyBox(redisKeys.get(0)));
        inForce.last().evaluator.forgetClient(withBox, QuotaLeases.RESET_GUARD);
    }
}
