package dev.ratelimit.jaxrs;

import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.HttpPolicy;
import dev.ratelimit.http.PolicyRuntime;
import dev.ratelimit.http.Settings;
import dev.ratelimit.jmx.RateLimiterJmx;
import jakarta.annotation.PreDestroy;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a rate-limit filter for every resource method annotated {@link RateLimited} (on the
 * method or its class), with its policy parsed and its limiter built once, at deployment; nothing is
 * read from annotations per request. Register it like any provider:
 * {@code resourceConfig.register(RateLimitFeature.class)} (Jersey), or list it in your
 * {@code Application#getClasses()}.
 *
 * <p>Redis and defaults come from the JAX-RS properties {@code ratelimit.<name>}, else the servlet
 * context-params {@code ratelimit.<name>}: the servlet filter's words. In one webapp, the filter and
 * the resources share one Redis client per connection setting.
 */
@Provider
public class RateLimitFeature implements DynamicFeature {
    private static final Logger log = LoggerFactory.getLogger(RateLimitFeature.class);

    /** Injected by the runtime when it runs in a servlet container; null elsewhere. */
    @Context
    private ServletContext servletContext;

    private RedisStoreRegistry registry;
    private final List<PolicyRuntime> runtimes = Collections.synchronizedList(new ArrayList<>());

    /**
     * @throws IllegalArgumentException when an annotation, property or context-param holds a bad
     *     value: the deployment must fail rather than run unlimited
     */
    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Method method = resourceInfo.getResourceMethod();
        Class<?> resource = resourceInfo.getResourceClass();
        RateLimited annotation = method.getAnnotation(RateLimited.class);
        if (annotation == null) {
            annotation = resource.getAnnotation(RateLimited.class);
        }
        if (annotation == null) {
            return;
        }
        String where = resource.getSimpleName() + "." + method.getName();
        PolicyRuntime runtime;
        try {
            HttpPolicy policy = HttpPolicy.parser(name -> "@RateLimited(" + ("policyName".equals(name) ? "policy" : name)
                            + ") on " + where)
                    .defaults(Settings.collect(context.getConfiguration().getPropertyNames(),
                            context.getConfiguration()::getProperty, Settings.PREFIX),
                            "property '" + Settings.PREFIX + "%s'")
                    .defaults(contextParams(), "context-param '" + Settings.PREFIX + "%s'")
                    .defaultPolicyName(where, "the resource method")
                    .classLoader(Thread.currentThread().getContextClassLoader())
                    .parse(words(annotation));
            runtime = PolicyRuntime.start(policy, registry(), webapp());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("RateLimitFeature cannot limit " + where + ": " + e.getMessage(), e);
        }
        runtimes.add(runtime);
        context.register(new RateLimitContainerFilter(runtime.pipeline(), servletContext() != null),
                Priorities.AUTHORIZATION);
        log.info("@RateLimited {}: {}", where, runtime.policy());
    }

    private static Map<String, String> words(RateLimited annotation) {
        Map<String, String> words = new LinkedHashMap<>();
        putNumber(words, "limit", annotation.limit());
        putText(words, "window", annotation.window());
        putText(words, "algorithm", annotation.algorithm());
        putNumber(words, "burst", annotation.burst());
        putNumber(words, "cost", annotation.cost());
        putText(words, "key", annotation.key());
        putText(words, "policyName", annotation.policy());
        return words;
    }

    private static void putNumber(Map<String, String> words, String name, long value) {
        if (value != RateLimited.UNSET) {
            words.put(name, Long.toString(value));
        }
    }

    private static void putText(Map<String, String> words, String name, String value) {
        if (!value.isEmpty()) {
            words.put(name, value);
        }
    }

    private Map<String, String> contextParams() {
        ServletContext context = servletContext();
        return context == null ? Map.of()
                : Settings.collect(Collections.list(context.getInitParameterNames()), context::getInitParameter,
                        Settings.PREFIX);
    }

    /** The webapp's registry (shared with the servlet filter) or, outside a servlet container, our own. */
    private synchronized RedisStoreRegistry registry() {
        if (registry == null) {
            ServletContext context = servletContext();
            registry = context == null ? new RedisStoreRegistry()
                    : RedisStoreRegistry.sharedIn(context::getAttribute, context::setAttribute);
        }
        return registry;
    }

    /** The JMX name's webapp: the context path ({@code /} for the root), or {@code jaxrs} outside a servlet container. */
    private String webapp() {
        ServletContext context = servletContext();
        if (context == null) {
            return "jaxrs";
        }
        return RateLimiterJmx.webappName(context.getContextPath());
    }

    private ServletContext servletContext() {
        if (servletContext == null) {
            return null;
        }
        try {
            // The runtime may inject a proxy that only works inside a servlet container.
            servletContext.getContextPath();
            return servletContext;
        } catch (RuntimeException notInAServletContainer) {
            return null;
        }
    }

    /** Gives back the Redis clients of the limited methods and their JMX beans when the application stops. */
    @PreDestroy
    public void close() {
        synchronized (runtimes) {
            runtimes.forEach(PolicyRuntime::close);
            runtimes.clear();
        }
    }
}
