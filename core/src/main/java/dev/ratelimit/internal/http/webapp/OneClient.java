package dev.ratelimit.internal.http.webapp;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.internal.http.client.KeySpec;
import dev.ratelimit.internal.http.settings.Dimensions;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.jmx.ClientOperations;
import dev.ratelimit.internal.support.Loggers;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * One client of a running policy, found by the value it sends (an address, a user name, an API
 * key) and keyed exactly as the policy keys its requests: IPv6 networks, digests of secret parts,
 * every tier's limiter, every {@code limits} dimension. For an operator who must see why a
 * customer is locked out, or unlock it, without computing Redis keys. The value itself is never
 * logged: a log line names the client by the digest of its key.
 */
public final class OneClient implements ClientOperations {
    private static final Logger LOG = Loggers.of(OneClient.class);

    private final HttpPolicy policy;
    private final RateLimiter limiter;
    /** The policy's own limiter, then each tier's. */
    private final List<RateLimiter> limiters = new ArrayList<>();

    OneClient(HttpPolicy policy, RateLimiter limiter, Map<String, RateLimiter> tierLimiters) {
        this.policy = policy;
        this.limiter = limiter;
        limiters.add(limiter);
        limiters.addAll(tierLimiters.values());
    }

    /** Its own limiter's, then each tier's. With {@code limits} the value must name every dimension's but global. */
    @Override
    public Map<String, Decision> peek(String value) {
        if (policy.requests().dimensions() != null) {
            return Collections.singletonMap(limiter.policyName(), limiter.peekEach(clientOfEveryEntry(value)));
        }
        String key = key(value);
        Map<String, Decision> states = new LinkedHashMap<>();
        for (RateLimiter each : limiters) {
            states.put(each.policyName(), each.peek(key));
        }
        return states;
    }

    /** In every limiter of the policy, in Redis and in this node's denials; a global dimension keeps its count. */
    @Override
    public List<String> reset(String value, String origin) {
        List<String> names = new ArrayList<>();
        // The key's digest names the client: its address or user name is personal data, and a log outlives the reset.
        String named;
        if (policy.requests().dimensions() != null) {
            List<String> keys = dimensionKeys(value);
            if (keys.stream().allMatch(key -> key == null)) {
                throw new IllegalArgumentException("no entry of policy '" + policy.policyName() + "' counts a client by that value");
            }
            limiter.resetEach(keys);
            names.add(limiter.policyName());
            named = RedisKeys.digest(String.valueOf(keys));
        } else {
            String key = key(value);
            for (RateLimiter each : limiters) {
                each.reset(key);
                names.add(each.policyName());
            }
            named = RedisKeys.digest(key);
        }
        LOG.info("Rate limit policy '{}': one client (key digest {}) reset in {} by {}", policy.policyName(), named,
                names, origin);
        return names;
    }

    /**
     * The client key the policy counts the client by, as its limiters are given it: a digest for a
     * secret part, an IPv6 network for an address; for {@code limits}, each entry's joined with
     * {@code " + "}, as the status page names a client. Never the secret value itself; a value that names no
     * client of the policy throws, saying why.
     */
    public String keyOf(String value) {
        if (policy.requests().dimensions() == null) {
            return key(value);
        }
        return String.join(" + ", clientOfEveryEntry(value));
    }

    /**
     * Each {@code limits} entry's key for the value, {@link KeySpec#GLOBAL} for a {@code global} one:
     * {@link #keyOf} and {@link #peek} both ask here, so a value one names a client by the other can
     * peek (the status page asks the first, then the second).
     *
     * @throws IllegalArgumentException naming the first entry but {@code global} whose key no client
     *     that sends the value can have ({@code alice} for {@code by ip}); never the value
     */
    private List<String> clientOfEveryEntry(String value) {
        Dimensions dimensions = policy.requests().dimensions();
        List<String> keys = dimensionKeys(value);
        for (int i = 0; i < keys.size(); i++) {
            if (dimensions.countsAll(i)) {
                keys.set(i, KeySpec.GLOBAL);
            } else if (keys.get(i) == null) {
                throw new IllegalArgumentException("policy '" + policy.policyName() + "' decides its entry '"
                        + dimensions.rules().get(i).name() + "' by " + dimensions.keyText(i) + ", and no such client"
                        + " sends that value; one value is looked up in every entry but global");
            }
        }
        return keys;
    }

    private String key(String value) {
        String key = policy.requests().clientKeyOfValue(value);
        if (key == null) {
            throw new IllegalArgumentException("policy '" + policy.policyName() + "' keys clients by " + policy.requests().keyDescription()
                    + ", and no such client sends that value");
        }
        return key;
    }

    private List<String> dimensionKeys(String value) {
        return new ArrayList<>(policy.requests().dimensions().clientKeysOfValue(value));
    }
}
