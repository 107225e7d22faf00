package dev.ratelimit.jaxrs;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.jmx.RateLimiterJmx;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.HttpPolicy;
import jakarta.annotation.PreDestroy;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
    private static final String PREFIX = "ratelimit.";

    /** Injected by the runtime when it runs in a servlet container; null elsewhere. */
    @Context
    private ServletContext servletContext;

    private RedisStoreRegistry registry;
    private final List<RedisSettings> acquired = Collections.synchronizedList(new ArrayList<>());
    private final List<RateLimiterJmx.Registration> beans = Collections.synchronizedList(new ArrayList<>());

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
        HttpPolicy policy = policy(annotation, where, context.getConfiguration());
        RateLimiter limiter;
        try {
            limiter = policy.newLimiter(registry().acquire(policy.redisSettings()));
        } catch (IllegalArgumentException e) {
            registry().release(policy.redisSettings());
            throw new IllegalArgumentException("RateLimitFeature cannot limit " + where + ": " + e.getMessage(), e);
        }
        acquired.add(policy.redisSettings());
        if (policy.jmx()) {
            beans.add(RateLimiterJmx.register(limiter, webapp(), policy.toString()));
        }
        context.register(new RateLimitContainerFilter(policy, limiter, servletContext() != null),
                Priorities.AUTHORIZATION);
        log.info("@RateLimited {}: {}", where, policy);
    }

    private HttpPolicy policy(RateLimited annotation, String where, Configuration configuration) {
        try {
            return HttpPolicy.parser(name -> "@RateLimited(" + ("policyName".equals(name) ? "policy" : name) + ") on "
                            + where)
                    .defaults(prefixed(configuration.getProperties()), "property '" + PREFIX + "%s'")
                    .defaults(contextParams(), "context-param '" + PREFIX + "%s'")
                    .defaultPolicyName(where, "the resource method")
                    .classLoader(Thread.currentThread().getContextClassLoader())
                    .parse(words(annotation));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("RateLimitFeature cannot limit " + where + ": " + e.getMessage(), e);
        }
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

    private static Map<String, String> prefixed(Map<String, Object> properties) {
        Map<String, String> words = new HashMap<>();
        properties.forEach((name, value) -> {
            if (name.startsWith(PREFIX) && value != null) {
                words.put(name.substring(PREFIX.length()), value.toString());
            }
        });
        return words;
    }

    private Map<String, String> contextParams() {
        ServletContext context = servletContext();
        Map<String, String> words = new HashMap<>();
        if (context != null) {
            for (String name : Collections.list(context.getInitParameterNames())) {
                if (name.startsWith(PREFIX)) {
                    words.put(name.substring(PREFIX.length()), context.getInitParameter(name));
                }
            }
        }
        return words;
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
        synchronized (beans) {
            beans.forEach(RateLimiterJmx.Registration::close);
            beans.clear();
        }
        RedisStoreRegistry current;
        synchronized (this) {
            current = registry;
        }
        if (current != null) {
            synchronized (acquired) {
                acquired.forEach(current::release);
                acquired.clear();
            }
        }
    }
}
