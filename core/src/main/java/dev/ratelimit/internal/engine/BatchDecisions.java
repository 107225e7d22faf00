package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link RateLimiter#tryAcquireAll}: a list of calls through the same chain of {@link Stage}s a single
 * decision (a list of one) runs. This checks the batch, all of it before anything is sent, and reads the
 * answers back. A batch holds no concurrency leases: each admission needs its own, released by its own
 * request. Thread-safe.
 */
public final class BatchDecisions {
    private final ClientKeys keys;
    private final Transport transport;
    private final RulesInForce inForce;
    private final Stage chain;

    BatchDecisions(ClientKeys keys, Transport transport, RulesInForce inForce, Stage chain) {
        this.keys = keys;
        this.transport = transport;
        this.inForce = inForce;
        this.chain = chain;
    }

    /** See {@link RateLimiter#tryAcquireAll(Map)}. */
    public Map<String, Decision> tryAcquireAll(Map<String, Long> permitsByKey) {
        refuseConcurrencyLeases();
        if (permitsByKey == null) {
            throw new IllegalArgumentException("permitsByKey must be a map of client keys to permits, but was null");
        }
        List<String> clients = new ArrayList<>(permitsByKey.size());
        List<Long> permits = new ArrayList<>(permitsByKey.size());
        for (Map.Entry<String, Long> each : permitsByKey.entrySet()) {
            check("a key of permitsByKey", each.getKey(), each.getValue());
            clients.add(each.getKey());
            permits.add(each.getValue());
        }
        List<Decision> decisions = decide(clients, permits);
        Map<String, Decision> byKey = new LinkedHashMap<>();
        for (int i = 0; i < clients.size(); i++) {
            byKey.put(clients.get(i), decisions.get(i));
        }
        return Collections.unmodifiableMap(byKey);
    }

    /** See {@link RateLimiter#tryAcquireAll(List)}. */
    public List<Decision> tryAcquireAll(List<String> clients) {
        refuseConcurrencyLeases();
        if (clients == null) {
            throw new IllegalArgumentException("keys must be a list of client keys, but was null");
        }
        for (int i = 0; i < clients.size(); i++) {
            check("keys[" + i + "]", clients.get(i), 0L);
        }
        return Collections.unmodifiableList(decide(clients, Collections.nCopies(clients.size(), 0L)));
    }

    private void refuseConcurrencyLeases() {
        if (keys.rules.get(0).algorithm().holdsLeases()) {
            throw new UnsupportedOperationException("batches take no leases, but policy '" + keys.policyName
                    + "' uses algorithm concurrency: decide each request with tryAcquire and release it");
        }
    }

    /** @param permits null (refused) or the caller's permits; 0 for each rule's cost */
    private void check(String what, String key, Long permits) {
        RedisKeys.checkClientKey(what, key);
        if (permits == null || permits != 0) {
            for (Rule rule : keys.rules) {
                if (permits == null || permits < 1 || permits > rule.capacity()) {
                    throw new IllegalArgumentException("permits for key '" + key + "' must be between 1 and "
                            + rule.capacity() + " (the capacity of rule " + rule.name() + "), but was " + permits);
                }
            }
        }
    }

    /** Decides the checked clients, in their order. */
    private List<Decision> decide(List<String> clients, List<Long> permits) {
        if (clients.isEmpty()) {
            return new ArrayList<>();
        }
        if (transport != Transport.LUA) {
            throw new UnsupportedOperationException("tryAcquireAll needs transport 'lua', but this limiter uses transport '"
                    + transport.configName() + "' (its MULTI/EXEC counter may need several round trips per "
                    + "client, so it is not batched); call tryAcquire for each key instead");
        }
        RulesInForce.Applied current = inForce.current();
        Call[] calls = new Call[clients.size()];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new Call(current, clients.get(i), keys.of(clients.get(i)), permits.get(i), true);
        }
        chain.decide(new Calls() {
            @Override
            public int size() {
                return calls.length;
            }

            @Override
            public Call get(int index) {
                return calls[index];
            }

            @Override
            public boolean batch() {
                return true;
            }
        });
        List<Decision> decisions = new ArrayList<>(calls.length);
        for (Call call : calls) {
            decisions.add(call.answer());
        }
        return decisions;
    }
}
