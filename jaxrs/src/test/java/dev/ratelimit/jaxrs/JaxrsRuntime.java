package dev.ratelimit.jaxrs;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.HashMap;
import java.util.Map;

/**
 * A JAX-RS runtime the suites run on. Jersey and RESTEasy each install a JVM-wide
 * {@code RuntimeDelegate}, so a suite is a subclass per runtime (named {@code Jersey*IT},
 * {@code Resteasy*IT}) that the pom runs in that runtime's JVM; this says what differs between them.
 */
enum JaxrsRuntime {
    JERSEY("org.glassfish.jersey.servlet.ServletContainer", Map.of()),
    RESTEASY("org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher",
            Map.of("resteasy.servlet.mapping.prefix", "/rest"));

    private final String servletClass;
    private final Map<String, String> servletParams;

    JaxrsRuntime(String servletClass, Map<String, String> servletParams) {
        this.servletClass = servletClass;
        this.servletParams = servletParams;
    }

    /**
     * A webapp at {@code path} whose runtime's servlet serves {@code application} under /rest/*, with
     * the library's listeners and its Redis as context-params (a key prefix of the app's own).
     */
    AppDescriptor.Builder app(String path, Class<?> application, RedisServerExtension redis) {
        Map<String, String> params = new HashMap<>(servletParams);
        params.put("jakarta.ws.rs.Application", application.getName());
        // The listener the jar's ServletContainerInitializer registers in a real container; the
        // embedded test containers run no initializers, so it is listed as web.xml would.
        return AppDescriptor.builder(path)
                .listener(RedisCleanupListener.class.getName())
                .listener(CurrentRequestListener.class.getName())
                .contextParam("ratelimit.redisUri", redis.uri())
                .contextParam("ratelimit.keyPrefix", redis.keyPrefix() + path.substring(1) + ":")
                .servlet("jaxrs", servletClass, params, "/rest/*");
    }
}
