package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.RateLimitFilter;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The kit's tests of a filtered servlet run twice, compiled once (pom.xml, failsafe): on the jakarta
 * jars in Tomcat 11 and Jetty 12, and on the javax jars in Tomcat 9 and Jetty 9.4. This holds each run
 * to its namespace, so that a class path gone wrong cannot pass the javax run on the jakarta jars.
 */
class KitNamespaceIT {
    private static final String NAMESPACE = System.getProperty("kit.servlet.namespace", "jakarta");

    @Test
    void theFilterIsOfThisRunsNamespace() {
        assertThat(Arrays.stream(RateLimitFilter.class.getInterfaces()).map(Class::getName))
                .contains(NAMESPACE + ".servlet.Filter");
    }

    @Test
    void theContainersAreOfThisRunsLines() throws Exception {
        String tomcat = (String) Class.forName("org.apache.catalina.util.ServerInfo").getMethod("getServerNumber").invoke(null);
        String jetty = (String) Class.forName("org.eclipse.jetty.util.Jetty").getField("VERSION").get(null);
        assertThat(tomcat).startsWith(NAMESPACE.equals("javax") ? "9." : "11.");
        assertThat(jetty).startsWith(NAMESPACE.equals("javax") ? "9.4." : "12.");
    }
}
