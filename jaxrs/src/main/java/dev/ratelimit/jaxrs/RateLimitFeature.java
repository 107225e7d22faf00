package dev.ratelimit.jaxrs;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.Settings;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.http.webapp.Webapp;
import jakarta.annotation.PreDestroy;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
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

    private Webapp webapp;
    /**
     * One runtime per limited method. Some runtimes (RESTEasy 3) configure a method more than once;
     * each time gets a filter over the same limiter, so one method is one policy, one client share and
     * one JMX bean.
     */
    private final Map<String, PolicyRuntime> runtimes = new LinkedHashMap<>();

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
        String key = resource.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
        PolicyRuntime runtime;
        synchronized (runtimes) {
            runtime = runtimes.get(key);
            if (runtime == null) {
                runtime = start(annotation, where, context);
                checkDefaultNameIsOwn(runtime, where, key);
                runtimes.put(key, runtime);
                log.info("@RateLimited {}: {}", where, runtime.policy());
            }
        }
        context.register(new RateLimitContainerFilter(runtime.pipeline(), inServletContainer()),
                Priorities.AUTHORIZATION);
    }

    /**
     * Two methods whose default policy names match ({@code get()} and {@code get(String)}, or two
     * classes of one simple name) would share one bucket by accident: refuse, naming both.
     */
    private void checkDefaultNameIsOwn(PolicyRuntime runtime, String where, String key) {
        String name = runtime.policy().policyName();
        if (!name.equals(where)) {
            return; // named on purpose: methods may share a policy that way
        }
        for (Map.Entry<String, PolicyRuntime> other : runtimes.entrySet()) {
            if (other.getValue().policy().policyName().equals(name)) {
                runtime.close();
                throw new IllegalArgumentException("RateLimitFeature cannot limit " + where + ": its default policy "
                        + "name '" + name + "' is also that of " + other.getKey() + ", and they would share one "
                        + "bucket; give one of them @RateLimited(policy = \"...\")");
            }
        }
    }

    private PolicyRuntime start(RateLimited annotation, String where, FeatureContext context) {
        Webapp webapp = webapp();
        try {
            Map<String, String> properties = Settings.collect(context.getConfiguration().getPropertyNames(),
                    context.getConfiguration()::getProperty, Settings.PREFIX);
            refuseMaxDelay(properties.getOrDefault(Settings.MAX_DELAY.name(),
                    webapp.defaults().get(Settings.MAX_DELAY.name())));
            HttpPolicy policy = HttpPolicy.parser(AnnotationSettings.labels(where))
                    .defaults(properties, "property '" + Settings.PREFIX + "%s'")
                    .defaults(webapp.defaults(), Webapp.defaultsLabelFormat())
                    .resources(webapp.resources())
                    .defaultPolicyName(where, "the resource method")
                    .classLoader(Thread.currentThread().getContextClassLoader())
                    .parse(AnnotationSettings.of(annotation));
            return webapp.start(policy);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("RateLimitFeature cannot limit " + where + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code maxDelay} holds a request without a thread, which a container filter cannot do: refused
     * before anything else is read, not ignored (it could only refuse such requests).
     */
    private static void refuseMaxDelay(String maxDelay) {
        if (maxDelay != null && !"off".equalsIgnoreCase(maxDelay.trim())) {
            throw new IllegalArgumentException(Settings.MAX_DELAY.name() + " applies to RateLimitFilter only: a JAX-RS "
                    + "container filter cannot hold a request without a thread; set it as the filter's init-param, "
                    + "not as property or context-param '" + Settings.PREFIX + Settings.MAX_DELAY.name() + "' (was '"
                    + maxDelay + "')");
        }
    }

    /**
     * The webapp, read once: its servlet context's shared clients and context-params, or, outside
     * a servlet container, clients of our own (JMX name {@code jaxrs}).
     */
    private synchronized Webapp webapp() {
        if (webapp == null) {
            ServletContext context = inServletContainer() ? servletContext : null;
            webapp = context == null ? Webapp.standalone("jaxrs")
                    : Webapp.of(context.getContextPath(), Collections.list(context.getInitParameterNames()),
                            context::getInitParameter, context::getAttribute, context::setAttribute,
                            context::getResourceAsStream);
        }
        return webapp;
    }

    private boolean inServletContainer() {
        if (servletContext == null) {
            return false;
        }
        try {
            // The runtime may inject a proxy that only works inside a servlet container.
            servletContext.getContextPath();
            return true;
        } catch (RuntimeException notInAServletContainer) {
            return false;
        }
    }

    /** Gives back the Redis clients of the limited methods and their JMX beans when the application stops. */
    @PreDestroy
    public void close() {
        synchronized (runtimes) {
            runtimes.values().forEach(PolicyRuntime::close);
            runtimes.clear();
        }
    }
}
