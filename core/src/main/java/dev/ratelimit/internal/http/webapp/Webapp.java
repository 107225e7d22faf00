package dev.ratelimit.internal.http.webapp;

import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.PolicyReader;
import dev.ratelimit.internal.http.settings.Settings;
import dev.ratelimit.internal.support.ClientLibraries;
import dev.ratelimit.internal.support.Immutable;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What the policies of one web application share, read once from its servlet context by whichever
 * adapter comes first: the Redis clients ({@link RedisStoreRegistry}, kept as a context attribute
 * so the filter and JAX-RS share it and a redeploy starts afresh), the name its JMX beans carry,
 * its {@code ratelimit.<name>} context-params, which are defaults for every policy, and the policies
 * it runs (also a context attribute), so that {@link #stop} ends exactly this webapp's policies.
 */
public final class Webapp {
    /** The servlet context attribute holding the policies a webapp runs. */
    static final String RUNNING_ATTRIBUTE = Webapp.class.getName() + ".running";

    private final RedisStoreRegistry registry;
    private final Running running;
    /** The {@code webapp} of its JMX beans: the context path, {@code /} for the root. */
    private final String jmxName;
    private final Map<String, String> defaults;
    /** {@code ServletContext.getResourceAsStream}, or null outside a servlet container. */
    private final Function<String, InputStream> resources;

    /** The policies one webapp runs; closed ones remove themselves. */
    private static final class Running {
        private final Set<PolicyRuntime> runtimes = new LinkedHashSet<>();

        synchronized void add(PolicyRuntime runtime) {
            runtimes.add(runtime);
        }

        synchronized void remove(PolicyRuntime runtime) {
            runtimes.remove(runtime);
        }

        synchronized List<PolicyRuntime> all() {
            return new ArrayList<>(runtimes);
        }
    }

    private Webapp(RedisStoreRegistry registry, Running running, String jmxName, Map<String, String> defaults,
            Function<String, InputStream> resources) {
        this.registry = registry;
        this.resources = resources;
        this.running = running;
        this.jmxName = jmxName;
        this.defaults = Immutable.copyOf(defaults);
    }

    /**
     * A servlet context, given by its parts ({@code context::getAttribute}, ...) so that no servlet type is named
     * here; {@code contextPath} empty for the root; its resources are what {@code denialBody} is read from.
     */
    public static Webapp of(String contextPath, Iterable<String> initParameterNames,
            Function<String, String> initParameter, Function<String, Object> getAttribute,
            BiConsumer<String, Object> setAttribute, Function<String, InputStream> resources) {
        Running running;
        synchronized (Running.class) {
            Object existing = getAttribute.apply(RUNNING_ATTRIBUTE);
            running = existing instanceof Running ? (Running) existing : new Running();
            setAttribute.accept(RUNNING_ATTRIBUTE, running);
        }
        return new Webapp(RedisStoreRegistry.sharedIn(getAttribute, setAttribute), running,
                jmxName(contextPath), Settings.collect(initParameterNames, initParameter, Settings.PREFIX), resources);
    }

    /** The webapp's name in its beans' JMX names: its context path, {@code /} for the root. */
    public static String jmxName(String contextPath) {
        return contextPath.isEmpty() ? "/" : contextPath;
    }

    /** An application outside any servlet container (JAX-RS on its own server): its own clients, no context-params. */
    public static Webapp standalone(String jmxName) {
        return new Webapp(new RedisStoreRegistry(), new Running(), jmxName, Collections.emptyMap(), null);
    }

    public RedisStoreRegistry registry() {
        return registry;
    }

    /** Its {@code ratelimit.<name>} context-params, without the prefix. */
    public Map<String, String> defaults() {
        return defaults;
    }

    /** Its resources ({@link PolicyReader#resources}), or null outside any servlet container. */
    public Function<String, InputStream> resources() {
        return resources;
    }

    /** The label format of a default, for messages: {@code context-param 'ratelimit.%s'}. */
    public static String defaultsLabelFormat() {
        return "context-param '" + Settings.PREFIX + "%s'";
    }

    /** Starts a policy of this webapp: see {@link PolicyRuntime#start}. */
    public PolicyRuntime start(HttpPolicy policy) {
        // Before any class that names a Jedis type loads: a WAR's own old Jedis would fail it deep inside.
        ClientLibraries.check();
        PolicyRuntime runtime = PolicyRuntime.start(policy, registry, jmxName);
        running.add(runtime);
        runtime.whenClosed(() -> running.remove(runtime));
        return runtime;
    }

    /**
     * A copy of the policies a webapp runs now, in the order they started: what a status page shows. Only this
     * webapp's, since the list is an attribute of its own servlet context ({@code context::getAttribute}).
     */
    public static List<PolicyRuntime> runningPolicies(Function<String, Object> getAttribute) {
        Object running = getAttribute.apply(RUNNING_ATTRIBUTE);
        return running instanceof Running ? ((Running) running).all() : Collections.<PolicyRuntime>emptyList();
    }

    /**
     * Ends what a stopping webapp still runs: closes its policies (their JMX beans go, by the names
     * they were registered under, so another webapp with the same context path keeps its own) and
     * then its Redis clients. For frameworks that give their providers no end-of-life call.
     */
    public static void stop(Function<String, Object> getAttribute) {
        Object running = getAttribute.apply(RUNNING_ATTRIBUTE);
        if (running instanceof Running) {
            for (PolicyRuntime runtime : ((Running) running).all()) {
                runtime.close();
            }
        }
        Object registry = getAttribute.apply(RedisStoreRegistry.CONTEXT_ATTRIBUTE);
        if (registry instanceof RedisStoreRegistry) {
            ((RedisStoreRegistry) registry).closeAll();
        }
    }

    @Override
    public String toString() {
        return "Webapp(" + jmxName + ")";
    }
}
