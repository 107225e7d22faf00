package dev.ratelimit.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.local.LocalDenyCache;
import dev.ratelimit.redis.RedisGateway;
import dev.ratelimit.redis.ScriptCall;
import dev.ratelimit.scripts.LuaEvaluator;
import dev.ratelimit.support.RedisKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@link RateLimiter#tryAcquireAll}: many clients decided in one round trip (one per Cluster node),
 * each exactly as {@code tryAcquire} decides it alone. Kept apart so that {@code RateLimiter} reads
 * as the single decision, and so that the steps of one ({@code acquireOnce}, {@code take},
 * {@code decide}) are here once more, in order: the deny cache first, then the scripts of all the
 * others sent together, then each reply or failure turned into that client's decision.
 *
 * <p>Every entry is checked before anything is sent, so a bad one takes nothing from the others.
 * Thread-safe, as the limiter.
 */
public final class BatchDecisions {
    /** One client of a batch and what becomes of it. */
    private static final class Entry {
        final String key;
        /** The caller's permits, or 0 for each rule's cost, as in {@code RateLimiter}. */
        final long permits;
        final List<String> redisKeys;
        /** Permits above a rule scaled down by adaptive limits: peeked at, and denied, as {@code take} does. */
        boolean overCapacity;
        /** The permits sent per rule: what a receipt must give back. */
        long[] sentPermits;
        Decision decision;
        /** Whether the local deny cache gave the decision. */
        boolean cached;

        Entry(String key, long permits, List<String> redisKeys) {
            this.key = key;
            this.permits = permits;
            this.redisKeys = redisKeys;
        }

        String cacheKey() {
            return key + '\n' + permits;
        }
    }

    private final List<Rule> rules;
    private final Transport transport;
    private final RedisGateway gateway;
    private final RulesInForce inForce;
    private final FailurePolicy failurePolicy;
    private final FailureAnswer onFailure;
    private final LocalDenyCache denyCache;
    private final DecisionAccounting accounting;
    private final Function<String, List<String>> redisKeys;

    /** @param denyCache null when the limiter has none */
    public BatchDecisions(List<Rule> rules, Transport transport, RedisGateway gateway, RulesInForce inForce,
            FailurePolicy failurePolicy, FailureAnswer onFailure, LocalDenyCache denyCache,
            DecisionAccounting accounting, Function<String, List<String>> redisKeys) {
        this.rules = rules;
        this.transport = transport;
        this.gateway = gateway;
        this.inForce = inForce;
        this.failurePolicy = failurePolicy;
        this.onFailure = onFailure;
        this.denyCache = denyCache;
        this.accounting = accounting;
        this.redisKeys = redisKeys;
    }

    /** See {@link RateLimiter#tryAcquireAll(Map)}. */
    public Map<String, Decision> tryAcquireAll(Map<String, Long> permitsByKey) {
        if (permitsByKey == null) {
            throw new IllegalArgumentException("permitsByKey must be a map of client keys to permits, but was null");
        }
        List<Entry> entries = new ArrayList<>(permitsByKey.size());
        for (Map.Entry<String, Long> each : permitsByKey.entrySet()) {
            entries.add(entry("a key of permitsByKey", each.getKey(), each.getValue()));
        }
        List<Decision> decisions = decide(entries);
        Map<String, Decision> byKey = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            byKey.put(entries.get(i).key, decisions.get(i));
        }
        return Collections.unmodifiableMap(byKey);
    }

    /** See {@link RateLimiter#tryAcquireAll(List)}. */
    public List<Decision> tryAcquireAll(List<String> keys) {
        if (keys == null) {
            throw new IllegalArgumentException("keys must be a list of client keys, but was null");
        }
        List<Entry> entries = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            entries.add(entry("keys[" + i + "]", keys.get(i), 0L));
        }
        return Collections.unmodifiableList(decide(entries));
    }

    /**
     * Checks a client of the batch, before anything is sent.
     *
     * @param what how the caller named it, for messages
     * @param permits null (checked) or the caller's permits; 0 for each rule's cost
     */
    private Entry entry(String what, String key, Long permits) {
        RedisKeys.checkClientKey(what, key);
        if (permits == null || permits != 0) {
            for (Rule rule : rules) {
                if (permits == null || permits < 1 || permits > rule.capacity()) {
                    throw new IllegalArgumentException("permits for key '" + key + "' must be between 1 and "
                            + rule.capacity() + " (the capacity of rule " + rule.name() + "), but was " + permits);
                }
            }
        }
        return new Entry(key, permits, redisKeys.apply(key));
    }

    /**
     * Decides the checked entries, in their order.
     *
     * @throws RedisFailureException the first failure, when no failure policy is set; the calls
     *     Redis answered took their permits
     */
    private List<Decision> decide(List<Entry> checked) {
        if (checked.isEmpty()) {
            return new ArrayList<>();
        }
        if (transport != Transport.LUA) {
            throw new UnsupportedOperationException("tryAcquireAll needs transport 'lua', but this limiter uses transport '"
                    + transport.configName() + "' (its MULTI/EXEC counter may need several round trips per "
                    + "client, so it is not batched); call tryAcquire for each key instead");
        }
        RulesInForce.Applied current = inForce.current();
        LuaEvaluator evaluator = (LuaEvaluator) current.evaluator;
        List<Entry> toRedis = new ArrayList<>(checked.size());
        List<ScriptCall> calls = new ArrayList<>(checked.size());
        for (Entry entry : checked) {
            entry.decision = denyCache == null ? null : denyCache.get(entry.cacheKey());
            if (entry.decision != null) {
                accounting.cachedDenial();
                entry.cached = true;
                continue;
            }
            long[] permits = current.costs;
            if (entry.permits != 0) {
                permits = new long[current.rules.size()];
                Arrays.fill(permits, entry.permits);
            }
            for (int i = 0; i < permits.length; i++) {
                entry.overCapacity |= permits[i] > current.rules.get(i).capacity();
            }
            toRedis.add(entry);
            entry.sentPermits = entry.overCapacity ? current.costs : permits;
            calls.add(evaluator.call(entry.redisKeys, entry.sentPermits, !entry.overCapacity));
        }
        if (!calls.isEmpty()) {
            // As DecisionFlow: a remembered denial counts from before the scripts ran, not from their replies.
            long askedAt = denyCache == null ? 0 : denyCache.now();
            long start = System.nanoTime();
            List<ScriptCall.Outcome> outcomes = gateway.evalAll(calls);
            long took = System.nanoTime() - start;
            RedisFailureException unanswered = null;
            boolean answered = false;
            for (int i = 0; i < toRedis.size(); i++) {
                Entry entry = toRedis.get(i);
                try {
                    entry.decision = evaluator.decision(entry.redisKeys, entry.sentPermits, outcomes.get(i).reply());
                    onFailure.redisAnswered();
                    answered = true;
                } catch (RedisFailureException e) {
                    accounting.redisFailed(entry.key, e, failurePolicy);
                    if (failurePolicy == null) {
                        unanswered = unanswered == null ? e : unanswered;
                        continue;
                    }
                    entry.decision = onFailure.decide(e, entry.redisKeys.get(0), entry.overCapacity ? 0 : entry.permits,
                            !entry.overCapacity);
                }
                if (entry.overCapacity) {
                    entry.decision = DecisionFlow.deniedUntilLimitsRise(entry.decision, inForce.untilNextAdaptation());
                }
                if (denyCache != null) {
                    denyCache.put(entry.cacheKey(), entry.decision, askedAt);
                }
            }
            if (answered) {
                // One sample per batch, its round trip(s): not one per key, which would weigh batches over calls.
                accounting.redisAnswered(took);
            }
            if (unanswered != null) {
                throw unanswered;
            }
        }
        List<Decision> decisions = new ArrayList<>(checked.size());
        for (Entry entry : checked) {
            accounting.handedOut(entry.key, entry.decision, entry.cached);
            decisions.add(entry.decision);
        }
        return decisions;
    }
}
