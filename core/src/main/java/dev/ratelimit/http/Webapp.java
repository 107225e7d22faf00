package dev.ratelimit.http;

import dev.ratelimit.internal.Immutable;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.jmx.RateLimiterJmx;
import java.util.Collections;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What the policies of one web application share, read once from its servlet context by whichever
 * adapter comes first: the Redis clients ({@link RedisStoreRegistry}, kept as a context attribute
 * so the filter and JAX-RS share it and a redeploy starts afresh), the name its JMX beans carry,
 * and its {@code ratelimit.<name>} context-params, which are defaults for every policy.
 */
public final class Webapp {
    private final RedisStoreRegistry registry;
    private final String jmxName;
    private final Map<String, String> defaults;

    private Webapp(RedisStoreRegistry registry, String jmxName, Map<String, String> defaults) {
        this.registry = registry;
        this.jmxName = jmxName;
        this.defaults = Immutable.copyOf(defaults);
    }

    /**
     * A servlet context, given by its parts so that no servlet type is named here.
     *
     * @param contextPath e.g. {@code /shop}, empty for the root webapp
     * @param initParameterNames the context-param names
     * @param initParameter a context-param's value
     * @param getAttribute e.g. {@code context::getAttribute}
     * @param setAttribute e.g. {@code context::setAttribute}
     */
    public static Webapp of(String contextPath, Iterable<String> initParameterNames,
            Function<String, String> initParameter, Function<String, Object> getAttribute,
            BiConsumer<String, Object> setAttribute) {
        return new Webapp(RedisStoreRegistry.sharedIn(getAttribute, setAttribute),
                RateLimiterJmx.webappName(contextPath),
                Settings.collect(initParameterNames, initParameter, Settings.PREFIX));
    }

    /** An application outside any servlet container (JAX-RS on its own server): its own clients, no context-params. */
    public static Webapp standalone(String jmxName) {
        return new Webapp(new RedisStoreRegistry(), jmxName, Collections.emptyMap());
    }

    /** The Redis clients its policies share. */
    public RedisStoreRegistry registry() {
        return registry;
    }

    /** The {@code webapp} of its JMX beans: the context path, {@code /} for the root. */
    public String jmxName() {
        return jmxName;
    }

    /** Its {@code ratelimit.<name>} context-params, without the prefix. */
    public Map<String, String> defaults() {
        return defaults;
    }

    /** The label format of a default, for messages: {@code context-param 'ratelimit.%s'}. */
    public static String defaultsLabelFormat() {
        return "context-param '" + Settings.PREFIX + "%s'";
    }

    /** Starts a policy of this webapp: see {@link PolicyRuntime#start}. */
    public PolicyRuntime start(HttpPolicy policy) {
        return PolicyRuntime.start(policy, registry, jmxName);
    }

    @Override
    public String toString() {
        return "Webapp(" + jmxName + ")";
    }
}
