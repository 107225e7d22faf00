package dev.ratelimit.http.status;

import dev.ratelimit.Decision;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.http.webapp.OneClient;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.support.Immutable;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One client's state in every policy of the webapp, as the status page's {@code client} parameter
 * asks: read from Redis now by peeks, which take nothing, so looking a client up never changes
 * what it is allowed. The value the operator typed is kept nowhere: each policy names the client
 * by its client key (a digest for a secret part), and a problem's text never holds the value.
 */
final class ClientLookup {
    /** One policy's answer: the client's key and each of its limiters' state, or why there is none. */
    static final class PolicyState {
        final String policy;
        /** As the policy's limiters count the client; null with a problem. */
        final String key;
        /** By limiter name: the policy's own first, then each tier's. Empty with a problem. */
        final Map<String, Decision> limiters;
        /** Why this policy has no state for the value, or null. */
        final String problem;

        private PolicyState(String policy, String key, Map<String, Decision> limiters, String problem) {
            this.policy = policy;
            this.key = key;
            this.limiters = limiters;
            this.problem = problem;
        }
    }

    final List<PolicyState> policies;

    private ClientLookup(List<PolicyState> policies) {
        this.policies = Immutable.copyOf(policies);
    }

    /** Looks the value up in each policy, sorted by name as the page shows them. */
    static ClientLookup of(String value, List<PolicyRuntime> runtimes) {
        return new ClientLookup(runtimes.stream().sorted(Comparator.comparing(runtime -> runtime.policy().policyName()))
                .map(runtime -> lookUp(runtime.policy().policyName(), runtime.oneClient(), value))
                .collect(Collectors.toList()));
    }

    private static PolicyState lookUp(String policy, OneClient client, String value) {
        String key;
        try {
            key = client.keyOf(value);
        } catch (IllegalArgumentException e) {
            // Its messages say why no client of the policy sends such a value, without repeating it.
            return new PolicyState(policy, null, Collections.<String, Decision>emptyMap(), "no client of this policy: "
                    + e.getMessage());
        }
        try {
            return new PolicyState(policy, key, Immutable.copyOf(client.peek(value)), null);
        } catch (RedisFailureException e) {
            return new PolicyState(policy, key, Collections.<String, Decision>emptyMap(), "Redis cannot be asked now: "
                    + e.getMessage());
        }
    }
}
