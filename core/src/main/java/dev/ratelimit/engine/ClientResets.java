package dev.ratelimit.engine;

import dev.ratelimit.local.LocalDenyCache;
import dev.ratelimit.redis.RedisGateway;
import dev.ratelimit.scripts.LuaEvaluator;
import dev.ratelimit.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * A limiter's client resets ({@code RateLimiter.reset} and {@code resetEach}): the client's keys
 * deleted in one call, what this node keeps of it forgotten, then the reset marked for the other
 * nodes. Kept apart from {@link DecisionEngine} so that both ways of naming a client reset alike: with
 * quota leases a reset must leave its guard and forget this node's leases, whichever way it came.
 * Thread-safe.
 */
final class ClientResets {
    private final ClientKeys keys;
    private final RedisGateway gateway;
    private final FailureAnswer onFailure;
    /** Null when denials are not remembered. */
    private final LocalDenyCache denyCache;
    /** Null unless busy clients are lent quota ahead of use. */
    private final QuotaLeases quota;
    private final RulesInForce inForce;
    private final LiveOverrides overrides;

    ClientResets(ClientKeys keys, RedisGateway gateway, FailureAnswer onFailure, LocalDenyCache denyCache,
            QuotaLeases quota, RulesInForce inForce, LiveOverrides overrides) {
        this.keys = keys;
        this.gateway = gateway;
        this.onFailure = onFailure;
        this.denyCache = denyCache;
        this.quota = quota;
        this.inForce = inForce;
        this.overrides = overrides;
    }

    /**
     * Forgets the client in Redis, in the local limiter and in the deny cache, then marks the reset
     * for the other nodes, which forget their remembered denials within the overrides' interval.
     */
    void reset(String key) {
        forget(keys.of(key));
        forgetDenials(key);
        overrides.markClientReset();
    }

    /**
     * Forgets the clients of the rules given one (null: that rule's count stays, as a {@code global}
     * one must when one client is reset) as {@link #reset} forgets one, and every denial this node
     * remembers: a remembered denial names all of a request's clients together, so none can be
     * picked out.
     */
    void resetEach(List<String> clientKeys) {
        if (clientKeys == null || clientKeys.size() != keys.rules()) {
            throw new IllegalArgumentException("clientKeys must hold one key or null per rule (" + keys.rules()
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
        if (denyCache != null) {
            denyCache.forget("");
        }
        overrides.markClientReset();
    }

    /** Forgets the denials remembered for the client, of every cost: they may no longer hold. */
    void forgetDenials(String key) {
        if (denyCache != null) {
            denyCache.forget(key + '\n');
        }
    }

    /**
     * Deletes one decision's keys, in one call, and forgets what this node keeps beside them: the
     * local limiter's count; with quota leases (one rule, so one key) the lease and rests held here,
     * and in Redis a guard that no rest of a lease lent before passes, or another node's rest would
     * land in the fresh state (over scripts, also without leases: refunds read it); and the first key's
     * penalty box, had its rule a penalty now or before.
     */
    private void forget(List<String> redisKeys) {
        onFailure.forget(redisKeys.get(0));
        if (quota != null) {
            quota.forget(redisKeys.get(0));
            ((LuaEvaluator) inForce.last().evaluator).forgetLeasedClient(redisKeys, QuotaLeases.RESET_GUARD);
            return;
        }
        List<String> withBox = new ArrayList<>(redisKeys);
        withBox.add(RedisKeys.penaltyBox(redisKeys.get(0)));
        if (inForce.last().evaluator instanceof LuaEvaluator) {
            // The guard too: a refund of an admission taken before the reset (countStatus, a usage
            // below the cost) finds it and gives nothing into the fresh state (refund.lua).
            ((LuaEvaluator) inForce.last().evaluator).forgetLeasedClient(withBox, QuotaLeases.RESET_GUARD);
        } else {
            // Without scripts nothing is ever given back: no guard to leave.
            gateway.delete(withBox);
        }
    }
}
