package dev.ratelimit.jaxrs;

import java.util.Map;

/** The @RateLimited contract on RESTEasy 6.2. */
class ResteasyRateLimitedIT extends RateLimitedResourcesContract {
    @Override
    String servletClass() {
        return "org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher";
    }

    @Override
    Map<String, String> servletParams(Class<?> application) {
        return Map.of("jakarta.ws.rs.Application", application.getName(), "resteasy.servlet.mapping.prefix", "/rest");
    }
}
