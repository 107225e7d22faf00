package dev.ratelimit.servlet.containers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.catalina.Host;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ErrorPage;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;

/**
 * Embedded Tomcat 11 on 127.0.0.1, port 0, base dir in a temp directory deleted on close, no JNDI
 * naming, no JMX registry.
 *
 * <p>Tomcat does not throw when a filter's {@code init()} fails: {@code StandardContext.filterStart()}
 * logs the exception (SEVERE, on the context's own logger
 * {@code org.apache.catalina.core.ContainerBase.[Tomcat].[localhost].[/app]}) and the context ends up
 * FAILED, then STOPPED. So while a context starts, a JUL handler on that logger captures the
 * thrown exceptions (and keeps them off the console); if the context did not reach STARTED it is
 * removed from the host and the captured exception becomes the {@link DeploymentFailedException}.
 */
final class TomcatContainer implements ServletContainer {

    static {
        Registry.disableRegistry(); // no MBeans
    }

    /** The StandardContext class logger prints "One or more Filters failed to start" etc. on failure. */
    private static final Logger STANDARD_CONTEXT_LOG = Logger.getLogger(StandardContext.class.getName());

    /** Guards the temporary muting of {@link #STANDARD_CONTEXT_LOG}, shared by all instances. */
    private static final Object LOG_LOCK = new Object();

    private static final String CATALINA_BASE = "catalina.base";
    private static final String CATALINA_HOME = "catalina.home";

    private final Map<String, StandardContext> apps = new LinkedHashMap<>();
    private Tomcat tomcat;
    private Path baseDir;
    private boolean closed;

    @Override
    public String name() {
        return "tomcat";
    }

    @Override
    public String toString() {
        return name();
    }

    private synchronized Tomcat started() {
        if (closed) {
            throw new IllegalStateException("tomcat container is closed");
        }
        if (tomcat != null) {
            return tomcat;
        }
        // Tomcat.initBaseDir() publishes catalina.base/catalina.home as SYSTEM properties and a later
        // Tomcat would take the first one's (deleted) base as its home and re-create it: undo that.
        String oldBase = System.getProperty(CATALINA_BASE);
        String oldHome = System.getProperty(CATALINA_HOME);
        System.clearProperty(CATALINA_BASE);
        System.clearProperty(CATALINA_HOME);
        try {
            baseDir = Files.createTempDirectory("ratelimit-tomcat-");
            Files.createDirectories(baseDir.resolve("webapps"));
            Tomcat t = new Tomcat();
            t.setBaseDir(baseDir.toString());
            t.setSilent(true);
            t.setPort(0);
            t.getHost().setAppBase(baseDir.resolve("webapps").toString()); // create the host before start
            Connector connector = t.getConnector();
            connector.setProperty("address", "127.0.0.1");
            t.start();
            if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
                t.stop();
                t.destroy();
                throw new IllegalStateException("tomcat connector did not start (state " + connector.getState() + ")");
            }
            tomcat = t;
            return t;
        } catch (IOException e) {
            deleteRecursively(baseDir);
            throw new UncheckedIOException(e);
        } catch (LifecycleException | RuntimeException e) {
            deleteRecursively(baseDir);
            throw new IllegalStateException("tomcat did not start", e);
        } finally {
            restore(CATALINA_BASE, oldBase);
            restore(CATALINA_HOME, oldHome);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    @Override
    public synchronized URI deploy(AppDescriptor app) throws DeploymentFailedException {
        Tomcat t = started();
        String path = app.contextPath();
        Host host = t.getHost();
        if (apps.containsKey(path) || host.findChild(path) != null) {
            throw new IllegalStateException("an app is already deployed at '" + path + "' on tomcat");
        }
        Path docBase = docBase(path);
        WebappFiles.war(app, docBase);

        StandardContext ctx = new StandardContext();
        ctx.setName(path);
        ctx.setPath(path);
        ctx.setDocBase(docBase.toString());
        if (app.webXml() != null) {
            TomcatDescriptors.readsItsDescriptor(ctx, app, t);
        } else {
            ctx.addLifecycleListener(new Tomcat.FixContextListener());
        }
        ctx.setParentClassLoader(TomcatContainer.class.getClassLoader());
        ctx.setFailCtxIfServletStartFails(true);
        // These two checks need --add-opens and only warn without it; thread leak detection stays on.
        ctx.setClearReferencesThreadLocals(false);
        ctx.setClearReferencesRmiTargets(false);
        app.contextParams().forEach(ctx::addParameter);
        app.listeners().forEach(ctx::addApplicationListener);
        for (FilterDecl f : app.filters()) {
            FilterDef def = new FilterDef();
            def.setFilterName(f.name());
            def.setFilterClass(f.className());
            f.initParams().forEach(def::addInitParameter);
            def.setAsyncSupported(Boolean.toString(f.asyncSupported()));
            ctx.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName(f.name());
            f.urlPatterns().forEach(map::addURLPatternDecoded);
            f.dispatchers().forEach(d -> map.setDispatcher(d.name())); // each call adds one
            ctx.addFilterMap(map);
        }
        for (ServletDecl s : app.servlets()) {
            Wrapper wrapper = ctx.createWrapper();
            wrapper.setName(s.name());
            wrapper.setServletClass(s.className());
            // <load-on-startup>1</load-on-startup>: a servlet that cannot start fails the deployment.
            wrapper.setLoadOnStartup(1);
            s.initParams().forEach(wrapper::addInitParameter);
            wrapper.setAsyncSupported(s.asyncSupported());
            ctx.addChild(wrapper);
            for (String pattern : s.urlPatterns()) {
                ctx.addServletMappingDecoded(pattern, s.name());
            }
        }

        for (ErrorPageDecl e : app.errorPages()) {
            ErrorPage page = new ErrorPage();
            page.setErrorCode(e.errorCode());
            page.setLocation(e.location());
            ctx.addErrorPage(page);
        }

        // The log name is derived from the parent chain (and cached), so set the parent first.
        ctx.setParent(host);
        Logger contextLog = Logger.getLogger(ctx.getLogName());
        StartupLog capture = new StartupLog();
        Throwable thrown = null;
        synchronized (LOG_LOCK) {
            boolean contextParents = contextLog.getUseParentHandlers();
            boolean classParents = STANDARD_CONTEXT_LOG.getUseParentHandlers();
            contextLog.addHandler(capture);
            contextLog.setUseParentHandlers(false);
            STANDARD_CONTEXT_LOG.addHandler(capture);
            STANDARD_CONTEXT_LOG.setUseParentHandlers(false);
            try {
                host.addChild(ctx); // the host is started, so this starts the context synchronously
            } catch (RuntimeException e) { // ContainerBase.addChild wraps a LifecycleException in an IllegalStateException
                thrown = e.getCause() != null ? e.getCause() : e;
            } finally {
                contextLog.removeHandler(capture);
                contextLog.setUseParentHandlers(contextParents);
                STANDARD_CONTEXT_LOG.removeHandler(capture);
                STANDARD_CONTEXT_LOG.setUseParentHandlers(classParents);
            }
        }

        if (thrown == null && ctx.getState() == LifecycleState.STARTED) {
            apps.put(path, ctx);
            capture.republish(); // nothing went wrong: let whatever was logged through
            return uri(path);
        }

        // Refuse the app like a failed deployment: take it off the host so its path answers 404.
        removeQuietly(host, ctx);
        deleteRecursively(docBase);
        Throwable cause = capture.firstThrown().orElse(thrown);
        if (cause != null) {
            throw DeploymentFailedException.of(name(), path, cause);
        }
        throw DeploymentFailedException.withoutCause(name(), path,
                capture.messages().isEmpty() ? "context state " + ctx.getState() : String.join("; ", capture.messages()));
    }

    @Override
    public synchronized void undeploy(String contextPath) {
        String path = AppDescriptor.normalizeContextPath(contextPath);
        StandardContext ctx = apps.remove(path);
        if (ctx == null || tomcat == null) {
            return;
        }
        // ContainerBase.removeChild stops (filterStop -> Filter.destroy()) and destroys the context.
        tomcat.getHost().removeChild(ctx);
        deleteRecursively(Path.of(ctx.getDocBase()));
    }

    @Override
    public int port() {
        return started().getConnector().getLocalPort();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (String path : apps.keySet().toArray(String[]::new)) {
            undeploy(path);
        }
        if (tomcat != null) {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (LifecycleException e) {
                throw new IllegalStateException("tomcat did not stop cleanly", e);
            } finally {
                tomcat = null;
                deleteRecursively(baseDir);
            }
        }
    }

    private Path docBase(String path) {
        try {
            String dirName = path.isEmpty() ? "ROOT" : path.substring(1).replace('/', '#');
            return Files.createDirectories(baseDir.resolve("docbase").resolve(dirName));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void removeQuietly(Host host, StandardContext ctx) {
        try {
            host.removeChild(ctx);
        } catch (RuntimeException ignored) {
            // the context is already unusable
        }
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort; it is a temp dir
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
