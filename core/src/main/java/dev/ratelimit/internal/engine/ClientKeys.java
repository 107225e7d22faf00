package dev.ratelimit.internal.engine;

import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * A limiter's Redis keys for a client, and the permits its rules can ever take: the checks every
 * way of deciding shares, so their messages agree. Immutable.
 */
public final class ClientKeys {
    public final String keyPrefix;
    public final String policyName;
    public final List<Rule> rules;

    ClientKeys(String keyPrefix, String policyName, List<Rule> rules) {
        this.keyPrefix = keyPrefix;
        this.policyName = policyName;
        this.rules = Immutable.copyOf(rules);
    }

    /** {@code <keyPrefix><policyName>:{<clientKey>}}, then {@code :<rule name>} per rule when there are several. */
    public List<String> of(String key) {
        String base = RedisKeys.key(keyPrefix, policyName, RedisKeys.checkClientKey("key", key));
        if (rules.size() == 1) {
            return Immutable.listOf(base);
        }
        List<String> keys = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            keys.add(base + ':' + rule.name());
        }
        return keys;
    }

    /** One key per rule, each counting a client of its own, under the policy's hash tag; size checked by the caller. */
    public List<String> ofEach(List<String> clientKeys) {
        List<String> keys = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            keys.add(ofRule(i, clientKeys.get(i)));
        }
        return keys;
    }

    /** The key of one rule's client, when each rule counts a client of its own. */
    public String ofRule(int rule, String clientKey) {
        return RedisKeys.dimensionKey(keyPrefix, policyName, rules.get(rule).name(),
                RedisKeys.checkClientKey("clientKeys", clientKey));
    }

    /** Against the configured rules: a request no rule could ever allow is a caller's bug. */
    public void checkPermits(long permits) {
        for (Rule rule : rules) {
            if (rule.algorithm().holdsLeases() && permits != 1) {
                throw new IllegalArgumentException("permits must be 1 for algorithm " + rule.algorithm()
                        + " (a request holds one lease while it is served), but was " + permits);
            }
            if (permits < 1 || permits > rule.capacity()) {
                throw new IllegalArgumentException("permits must be between 1 and " + rule.capacity()
                        + " (the capacity of rule " + rule.name() + "), but was " + permits);
            }
        }
    }
}
