package dev.ratelimit.servlet.containers;

import java.net.URI;

/**
 * An embedded servlet container (Tomcat 11 or Jetty 12 ee10) that deploys {@link AppDescriptor}s the way a
 * {@code web.xml} would declare them, and serves them over real HTTP on {@code 127.0.0.1}.
 *
 * <p>The server starts lazily on the first {@link #deploy} (or {@link #port()}) on a free port. One
 * container may hold several apps at different context paths. {@link #close()} stops everything
 * and removes temporary directories.
 */
public interface ServletContainer extends AutoCloseable {

    /** Embedded Tomcat 11: a plain {@code StandardContext} per app, filters as FilterDef + FilterMap. */
    static ServletContainer tomcat() {
        return new TomcatContainer();
    }

    /** Embedded Jetty 12 (ee10): a {@code ServletContextHandler} per app in a ContextHandlerCollection. */
    static ServletContainer jetty() {
        return new JettyContainer();
    }

    /** {@code "tomcat"} or {@code "jetty"}. */
    String name();

    /**
     * Deploys and starts the app; returns its base URI with a trailing slash, e.g.
     * {@code http://127.0.0.1:PORT/app/} (or {@code http://127.0.0.1:PORT/} for the root context).
     *
     * @throws DeploymentFailedException when the container refuses to start the app (e.g. a
     *     filter's {@code init()} threw); the context is then not mapped and its path does not
     *     answer 200.
     * @throws IllegalStateException if an app is already deployed at that context path
     */
    URI deploy(AppDescriptor app) throws DeploymentFailedException;

    /**
     * Stops and removes the app at that context path. When this returns every filter's
     * {@code destroy()} (and every servlet's) has run. Does nothing if nothing is deployed there.
     */
    void undeploy(String contextPath);

    /** The local HTTP port (starts the server if it is not running yet). */
    int port();

    /** {@code http://127.0.0.1:PORT} + contextPath + {@code "/"}. */
    default URI uri(String contextPath) {
        return URI.create("http://127.0.0.1:" + port() + AppDescriptor.normalizeContextPath(contextPath) + "/");
    }

    /** Stops the server (undeploying every app) and deletes temporary files. Idempotent. */
    @Override
    void close();
}
