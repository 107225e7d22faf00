package dev.ratelimit.jaxrs;

import java.util.Map;

/** The @RateLimited contract on Jersey 3.1. */
class JerseyRateLimitedIT extends RateLimitedResourcesContract {
    @Override
    String servletClass() {
        return "org.glassfish.jersey.servlet.ServletContainer";
    }

    @Override
    Map<String, String> servletParams(Class<?> application) {
        return Map.of("jakarta.ws.rs.Application", application.getName());
    }
}
