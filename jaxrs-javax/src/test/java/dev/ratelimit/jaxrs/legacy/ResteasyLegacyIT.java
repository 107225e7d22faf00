package dev.ratelimit.jaxrs.legacy;

import java.util.Collections;
import java.util.Map;

/** RESTEasy 3 (JAX-RS 2.1, javax.ws.rs). */
class ResteasyLegacyIT extends LegacyRateLimitedContract {
    @Override
    String servletClass() {
        return "org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher";
    }

    @Override
    Map<String, String> servletParams(Class<?> application) {
        return Collections.singletonMap("javax.ws.rs.Application", application.getName());
    }
}
