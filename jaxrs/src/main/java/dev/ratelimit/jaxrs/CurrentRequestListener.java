package dev.ratelimit.jaxrs;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;

/**
 * Lets {@link RateLimitContainerFilter} reach the servlet request (its address, session and
 * attributes) on every JAX-RS runtime: each request carries itself as the attribute
 * {@link #ATTRIBUTE}, which the JAX-RS request context shows as a property. Jersey injects nothing
 * into the filter instances a DynamicFeature registers, and a request-scoped proxy injected into
 * the feature instead cannot be built in a WAR's class loader, so neither injection can be relied
 * on. Registered by {@link RateLimitServletInitializer}; elsewhere list it in web.xml:
 * {@code <listener><listener-class>dev.ratelimit.jaxrs.CurrentRequestListener</listener-class></listener>}.
 */
public class CurrentRequestListener implements ServletRequestListener {
    /** The request attribute holding the request itself. */
    public static final String ATTRIBUTE = CurrentRequestListener.class.getName() + ".request";

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        request.setAttribute(ATTRIBUTE, request);
    }

    /** Nothing to do: the attribute ends with its request. (Servlet 3.1 has no default.) */
    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        // nothing
    }
}
