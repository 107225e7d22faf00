package dev.ratelimit.servers;

import dev.ratelimit.testing.Java8;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A JAX-RS 2.1 application on Jersey 2 with {@code @RateLimited} resources, as a javax team
 * writes one for Tomcat 7, 8.5 and 9 or Jetty 9.4 on Java 8: the resource compiled for Java 8
 * against the JAX-RS API and {@code ratelimit-jaxrs-javax}, Jersey's servlet in web.xml with
 * {@code RateLimitFeature} among its providers.
 */
final class JaxrsApp {
    /** 40 an hour per {@code X-Client}, exact across servers; everything else unlimited. */
    static final int LIMIT = 40;

    private static final String SOURCE = """
            package legacy;

            import dev.ratelimit.jaxrs.RateLimited;
            import javax.ws.rs.GET;
            import javax.ws.rs.Path;

            @Path("orders")
            public class Orders {
                @GET
                @RateLimited(limit = %d, window = "1h", key = "header:X-Client", policy = "orders")
                public String list() {
                    return "orders";
                }

                @GET
                @Path("free")
                public String free() {
                    return "free";
                }
            }
            """.formatted(LIMIT);

    private JaxrsApp() {
    }

    /** The resource's classes, compiled under {@code work} against the jars of {@code jerseyJars} and {@code jaxrsJars}. */
    static Path compiled(Path jerseyJars, Path jaxrsJars, Path work) {
        List<Path> classPath = new ArrayList<>(LegacyApp.jars(jerseyJars, "jakarta.ws.rs-api-*.jar"));
        classPath.addAll(LegacyApp.jars(jaxrsJars, "ratelimit-jaxrs-javax-*.jar"));
        return Java8.compile("legacy.Orders", SOURCE, classPath, work.resolve("jaxrs"));
    }

    /** Jersey's servlet on {@code /rest/*} with the resource and {@code RateLimitFeature}. */
    static String declaration() {
        return """
                <servlet>
                  <servlet-name>jersey</servlet-name>
                  <servlet-class>org.glassfish.jersey.servlet.ServletContainer</servlet-class>
                  <init-param>
                    <param-name>jersey.config.server.provider.classnames</param-name>
                    <param-value>legacy.Orders,dev.ratelimit.jaxrs.RateLimitFeature</param-value>
                  </init-param>
                  <load-on-startup>1</load-on-startup>
                </servlet>
                <servlet-mapping>
                  <servlet-name>jersey</servlet-name>
                  <url-pattern>/rest/*</url-pattern>
                </servlet-mapping>
                """;
    }
}
