package dev.ratelimit.jaxrs;

import dev.ratelimit.internal.http.webapp.Webapp;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Ends the webapp's policies (their JMX beans) and closes its Redis clients when the webapp stops. JAX-RS has no standard end-of-life
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
        Webapp.stop(event.getServletContext()::getAttribute);
    }
}
