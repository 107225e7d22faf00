package dev.ratelimit.jaxrs.legacy;

import java.util.Collections;
import java.util.Map;

/** Jersey 2 (JAX-RS 2.1, javax.ws.rs). */
class JerseyLegacyIT extends LegacyRateLimitedContract {
    @Override
    String servletClass() {
        return "org.glassfish.jersey.servlet.ServletContainer";
    }

    @Override
    Map<String, String> servletParams(Class<?> application) {
        return Collections.singletonMap("javax.ws.rs.Application", application.getName());
    }
}
