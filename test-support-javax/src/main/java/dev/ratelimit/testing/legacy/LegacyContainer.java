package dev.ratelimit.testing.legacy;

import java.net.URI;

/**
 * An embedded javax.servlet container of a legacy line (Tomcat 9, Jetty 9.4) that runs
 * {@link LegacyWebApp}s, for the tests of the javax jars. Not AutoCloseable on purpose: JUnit closes
 * AutoCloseable parameters after each invocation.
 */
public interface LegacyContainer {

    /** {@code tomcat-9} or {@code jetty-9.4}. */
    String name();

    /**
     * Starts the webapp.
     *
     * @return its base URI, ending in {@code /}
     * @throws IllegalStateException if it did not start (a filter's or a servlet's init failed)
     */
    URI deploy(LegacyWebApp app);

    /** Stops and removes the webapp at that path: its filters' and servlets' destroy() run. */
    void undeploy(String contextPath);

    /** Stops the container. */
    void stop();

    /** Tomcat 9 on a free loopback port. */
    static LegacyContainer tomcat9() {
        return new Tomcat9();
    }

    /** Jetty 9.4 on a free loopback port. */
    static LegacyContainer jetty94() {
        return new Jetty94();
    }
}
