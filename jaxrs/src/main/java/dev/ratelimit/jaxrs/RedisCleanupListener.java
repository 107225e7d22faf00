package dev.ratelimit.jaxrs;

import dev.ratelimit.jmx.RateLimiterJmx;
import dev.ratelimit.RedisStoreRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Closes the webapp's Redis clients, and removes its JMX beans, when the webapp stops. JAX-RS has no standard end-of-life
 * hook for providers (Jersey calls {@code @PreDestroy} on {@link RateLimitFeature}, RESTEasy does
 * not), so this servlet listener makes sure no connection outlives the webapp. It is registered by
 * {@link RateLimitServletInitializer} wherever the container runs initializers from
 * {@code WEB-INF/lib} (Tomcat; Jetty with annotations); elsewhere list it in web.xml:
 * {@code <listener><listener-class>dev.ratelimit.jaxrs.RedisCleanupListener</listener-class></listener>}.
 */
public class RedisCleanupListener implements ServletContextListener {

    /** Nothing to do at start: policies open their clients when they are deployed. (Servlet 3.1 has no default.) */
    @Override
    public void contextInitialized(ServletContextEvent event) {
        // nothing
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        Object registry = context.getAttribute(RedisStoreRegistry.CONTEXT_ATTRIBUTE);
        if (registry instanceof RedisStoreRegistry) {
            ((RedisStoreRegistry) registry).closeAll();
        }
        RateLimiterJmx.unregisterAll(RateLimiterJmx.webappName(context.getContextPath()));
    }
}
