package dev.ratelimit.servlet.containers;

import java.net.URI;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.FilterMapping;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.ServletMapping;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.security.Credential;

/**
 * Embedded Jetty 12 (ee10) on 127.0.0.1, port 0: one {@link ServletContextHandler} per app in a
 * dynamic {@link ContextHandlerCollection}.
 *
 * <p>A context is added to the collection and then started explicitly; if its start throws (with
 * {@code ServletHandler.setStartWithUnavailable(false)}, the default, a filter's failing
 * {@code init()} propagates out of {@code start()}), it is removed from the collection and stopped, so
 * its path answers 404.
 */
final class JettyContainer implements ServletContainer {

    static {
        // Jetty logs every context start/stop at INFO through slf4j; keep test output quiet unless asked.
        if (System.getProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty", "warn");
        }
        // A filter class that cannot be loaded is logged with a stack trace at WARN; deploy() reports it anyway.
        if (System.getProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty.ee10.servlet.BaseHolder") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty.ee10.servlet.BaseHolder", "error");
        }
    }

    private final Map<String, ServletContextHandler> apps = new LinkedHashMap<>();
    /** Each app's resource directory, when it has resources. */
    private final Map<String, java.nio.file.Path> resourceDirs = new LinkedHashMap<>();
    private Server server;
    private ServerConnector connector;
    private ContextHandlerCollection contexts;
    private boolean closed;

    @Override
    public String name() {
        return "jetty";
    }

    @Override
    public String toString() {
        return name();
    }

    private synchronized Server started() {
        if (closed) {
            throw new IllegalStateException("jetty container is closed");
        }
        if (server != null) {
            return server;
        }
        Server s = new Server();
        ServerConnector c = new ServerConnector(s);
        c.setHost("127.0.0.1");
        c.setPort(0);
        s.addConnector(c);
        ContextHandlerCollection collection = new ContextHandlerCollection(true); // dynamic: add apps while started
        s.setHandler(collection);
        try {
            s.start();
        } catch (Exception e) {
            stopQuietly(s);
            throw new IllegalStateException("jetty did not start", e);
        }
        server = s;
        connector = c;
        contexts = collection;
        return s;
    }

    @Override
    public synchronized URI deploy(AppDescriptor app) throws DeploymentFailedException {
        started();
        String path = app.contextPath();
        if (apps.containsKey(path)) {
            throw new IllegalStateException("an app is already deployed at '" + path + "' on jetty");
        }
        // Written to compile on Jetty 9.4 too: test-support-javax builds the javax harness from this source.
        ServletContextHandler ctx = app.webXml() != null ? readingItsDescriptor(app, path)
                : new ServletContextHandler(ServletContextHandler.SESSIONS);
        ctx.setContextPath(path.isEmpty() ? "/" : path);
        ctx.setDisplayName(path.isEmpty() ? "/" : path);
        app.contextParams().forEach(ctx::setInitParameter);
        if (app.webXml() == null && !app.resources().isEmpty()) {
            java.nio.file.Path base = resourceBase(path);
            WebappFiles.resources(app, base);
            // Jetty 9.4 names it setResourceBase: test-support-javax replaces this call.
            ctx.setBaseResourceAsString(base.toString());
        }
        for (String listener : app.listeners()) {
            try {
                ctx.addEventListener((java.util.EventListener) Class.forName(listener).getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("cannot create listener " + listener, e);
            }
        }

        ServletHandler handler = ctx.getServletHandler();
        handler.setStartWithUnavailable(false); // a failing init() must fail start(), not just mark the holder unavailable
        for (FilterDecl f : app.filters()) {
            FilterHolder holder = new FilterHolder();
            holder.setName(f.name());
            holder.setClassName(f.className());
            holder.setInitParameters(f.initParams());
            holder.setAsyncSupported(f.asyncSupported()); // false is the web.xml default (Jetty's embedded default is true)
            handler.addFilter(holder);
            FilterMapping mapping = new FilterMapping();
            mapping.setFilterName(f.name());
            mapping.setPathSpecs(f.urlPatterns().toArray(String[]::new));
            mapping.setDispatcherTypes(EnumSet.copyOf(f.dispatchers()));
            handler.addFilterMapping(mapping);
        }
        for (ServletDecl s : app.servlets()) {
            ServletHolder holder = new ServletHolder();
            holder.setName(s.name());
            holder.setClassName(s.className());
            holder.setInitParameters(s.initParams());
            // <load-on-startup>1</load-on-startup>: a servlet that cannot start fails the deployment.
            holder.setInitOrder(1);
            holder.setAsyncSupported(s.asyncSupported()); // false is the web.xml default (Jetty's embedded default is true)
            handler.addServlet(holder);
            ServletMapping mapping = new ServletMapping();
            mapping.setServletName(s.name());
            mapping.setPathSpecs(s.urlPatterns().toArray(String[]::new));
            handler.addServletMapping(mapping);
        }
        if (!app.errorPages().isEmpty()) {
            ErrorPageErrorHandler errors = new ErrorPageErrorHandler();
            app.errorPages().forEach(e -> errors.addErrorPage(e.errorCode(), e.location()));
            ctx.setErrorHandler(errors);
        }

        contexts.addHandler(ctx);
        Throwable failure = null;
        try {
            ctx.start();
        } catch (Throwable e) {
            failure = e;
        }
        if (failure == null && ctx.isStarted() && ctx.isAvailable()) {
            apps.put(path, ctx);
            return uri(path);
        }
        contexts.removeHandler(ctx);
        stopQuietly(ctx);
        ctx.destroy();
        TomcatContainer.deleteRecursively(resourceDirs.remove(path));
        if (failure != null) {
            throw DeploymentFailedException.of(name(), path, failure);
        }
        throw DeploymentFailedException.withoutCause(name(), path, "context is not available after start");
    }

    /**
     * A webapp that reads its WEB-INF/web.xml as Jetty reads a deployed WAR's ({@link WebAppContext}:
     * webdefault's default servlet, the descriptor's version, login-config and constraints), its
     * classes from the test class path, its realm the descriptor's users.
     */
    private WebAppContext readingItsDescriptor(AppDescriptor app, String path) {
        java.nio.file.Path base = resourceBase(path);
        WebappFiles.war(app, base);
        WebAppContext ctx = new WebAppContext();
        // Jetty 9.4 names it setResourceBase: test-support-javax replaces this call.
        ctx.setBaseResourceAsString(base.toString());
        ctx.setParentLoaderPriority(true);
        ctx.setThrowUnavailableOnStartupException(true);
        UserStore users = new UserStore();
        for (UserDecl user : app.users()) {
            users.addUser(user.name(), Credential.getCredential(user.password()), user.roles().toArray(String[]::new));
        }
        HashLoginService realm = new HashLoginService("users");
        realm.setUserStore(users);
        ctx.getSecurityHandler().setLoginService(realm);
        return ctx;
    }

    @Override
    public synchronized void undeploy(String contextPath) {
        String path = AppDescriptor.normalizeContextPath(contextPath);
        ServletContextHandler ctx = apps.remove(path);
        if (ctx == null || contexts == null) {
            return;
        }
        contexts.removeHandler(ctx); // unmapped first: the path answers 404 from now on
        stopQuietly(ctx); // ServletHandler.doStop -> Filter.destroy()
        ctx.destroy();
        TomcatContainer.deleteRecursively(resourceDirs.remove(path));
    }

    @Override
    public int port() {
        started();
        synchronized (this) {
            return connector.getLocalPort();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Contexts added to a running collection are not managed beans of the server: stop them ourselves.
        for (String path : apps.keySet().toArray(String[]::new)) {
            undeploy(path);
        }
        if (server != null) {
            try {
                server.stop();
            } catch (Exception e) {
                throw new IllegalStateException("jetty did not stop cleanly", e);
            } finally {
                server.destroy();
                server = null;
            }
        }
    }

    /** A fresh directory for an app's resources, deleted when the app is undeployed. */
    private java.nio.file.Path resourceBase(String path) {
        try {
            java.nio.file.Path base = java.nio.file.Files.createTempDirectory("ratelimit-jetty-");
            resourceDirs.put(path, base);
            return base;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("no resource directory for " + path, e);
        }
    }

    private static void stopQuietly(org.eclipse.jetty.util.component.LifeCycle lifeCycle) {
        try {
            lifeCycle.stop();
        } catch (Exception ignored) {
            // already failed
        }
    }

}
