package dev.ratelimit.servlet.legacy;

import java.net.URI;
import java.util.Map;

/**
 * An embedded javax.servlet container of a legacy line (Tomcat 9, Jetty 9.4) running one webapp
 * per context path, each with a {@link PingServlet} behind the filter under test.
 */
interface LegacyContainer {

    /** {@code tomcat-9} or {@code jetty-9.4}. */
    String name();

    /**
     * Starts a webapp whose {@code /*} goes through {@code filterClass} with these init-params.
     *
     * @return the webapp's base URI, ending in {@code /}
     * @throws IllegalStateException if the webapp did not start (a filter's init failed)
     */
    URI deploy(String contextPath, String filterClass, Map<String, String> initParams,
            Map<String, String> contextParams);

    /** Stops and removes the webapp: its filters' destroy() run. */
    void undeploy(String contextPath);

    /** Stops the container (not AutoCloseable: JUnit would close a parameter after each invocation). */
    void stop();
}
