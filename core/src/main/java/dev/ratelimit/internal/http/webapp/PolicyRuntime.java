package dev.ratelimit.internal.http.webapp;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.internal.support.Loggers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One running policy: its share of the webapp's Redis client, its limiter, its JMX bean and its
 * {@link RateLimitPipeline}, acquired together and released together. Both adapters start one per
 * policy (a filter, an annotated resource method) and close it when the webapp stops; a step that
 * fails on the way gives back what the earlier steps took, since no close follows a failed start.
 */
public final class PolicyRuntime implements AutoCloseable {
    private final HttpPolicy policy;
    private final RedisStoreRegistry registry;
    private final RateLimiter limiter;
    private final Map<String, RateLimiter> tierLimiters;
    private final RateLimitPipeline pipeline;
    private RateLimiterJmx.Registration bean;
    /** The limiters' {@code metrics} listeners, closed to remove their meters. */
    private final List<AutoCloseable> meters;
    private Runnable onClose;
    private boolean closed;

    private PolicyRuntime(HttpPolicy policy, RedisStoreRegistry registry, RateLimiter limiter,
            Map<String, RateLimiter> tierLimiters, List<AutoCloseable> meters) {
        this.policy = policy;
        this.meters = meters;
        this.registry = registry;
        this.limiter = limiter;
        this.tierLimiters = tierLimiters;
        this.pipeline = new RateLimitPipeline(policy, limiter, tierLimiters);
    }

    /**
     * Connects the policy, readies Redis for its first requests (connections, scripts, overrides;
     * bounded, see {@link dev.ratelimit.RateLimiterBuilder#warmUp(boolean)}: a Redis that is down
     * now is met by {@code onRedisFailure}, not by a failed start) and publishes its JMX bean unless
     * {@code jmx=false}. An IllegalArgumentException for settings only the Redis topology can refuse (transactions
     * on Cluster), or an IllegalStateException when the JMX bean cannot be registered, leaves nothing acquired.
     */
    public static PolicyRuntime start(HttpPolicy policy, RedisStoreRegistry registry, String webapp) {
        RedisStore store = registry.acquire(policy.redisSettings());
        List<AutoCloseable> meters = new ArrayList<>();
        try {
            RateLimiter limiter = policy.limiters().newLimiter(store, webapp, meters);
            PolicyRuntime runtime = new PolicyRuntime(policy, registry, limiter,
                    policy.limiters().newTierLimiters(store, webapp, meters), meters);
            if (policy.limiters().jmx()) {
                try {
                    runtime.bean = RateLimiterJmx.register(limiter, webapp, policy.toString(), policy.enforce(),
                            runtime.oneClient());
                } catch (RuntimeException e) {
                    throw new IllegalStateException("cannot register the JMX bean of policy '" + policy.policyName()
                            + "': " + e.getMessage(), e);
                }
            }
            return runtime;
        } catch (RuntimeException e) {
            closeAll(meters);
            registry.release(policy.redisSettings());
            throw e;
        }
    }

    public HttpPolicy policy() {
        return policy;
    }

    public RateLimiter limiter() {
        return limiter;
    }

    public RateLimitPipeline pipeline() {
        return pipeline;
    }

    /** One client of this policy, by the value it sends: to see its state, or to forget it. */
    public OneClient oneClient() {
        return new OneClient(policy, limiter, tierLimiters);
    }

    /** Runs once this runtime is closed (a webapp forgets it then). */
    synchronized void whenClosed(Runnable action) {
        onClose = action;
    }

    /** Removes the JMX bean and gives the Redis client back (the last user closes it). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (bean != null) {
                bean.close();
            }
            closeAll(meters);
            // Before the client goes: what this node holds of its clients' quota leases goes back.
            limiter.giveBackLeases();
            tierLimiters.values().forEach(RateLimiter::giveBackLeases);
        } finally {
            // Whatever failed above, the client is given back: a pool left open outlives the webapp.
            boolean clientClosed = registry.release(policy.redisSettings());
            Loggers.of(PolicyRuntime.class).info("Rate limit policy '{}' stopped{}", policy.policyName(),
                    clientClosed ? "; it was the last on its Redis client, which is closed" : "");
            if (onClose != null) {
                onClose.run();
            }
        }
    }

    /** Removes the meters of {@code metrics}; a failure is logged, never thrown (the rest must still close). */
    private static void closeAll(List<AutoCloseable> meters) {
        for (AutoCloseable each : meters) {
            try {
                each.close();
            } catch (Exception e) {
                Loggers.of(PolicyRuntime.class).warn("Cannot remove the meters of {}", each, e);
            }
        }
    }

    @Override
    public String toString() {
        return "PolicyRuntime(" + policy.policyName() + ")";
    }
}
