package dev.ratelimit.testing.legacy;

import java.net.URI;
import java.util.EnumSet;
import javax.servlet.DispatcherType;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/** Embedded Jetty 9.4 (Servlet 3.1, javax.servlet) on a free port of the loopback address. */
final class Jetty94 implements LegacyContainer {
    private final Server server = new Server();
    private final ContextHandlerCollection contexts = new ContextHandlerCollection();
    private final int port;

    Jetty94() {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(contexts);
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty 9.4 did not start", e);
        }
        port = connector.getLocalPort();
    }

    @Override
    public String name() {
        return "jetty-9.4";
    }

    @Override
    public URI deploy(LegacyWebApp app) {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath(app.contextPath);
        app.contextParams.forEach(context::setInitParameter);
        for (LegacyWebApp.Component filter : app.filters) {
            FilterHolder holder = new FilterHolder();
            holder.setName(filter.name);
            holder.setClassName(filter.className);
            holder.setInitParameters(filter.initParams);
            context.addFilter(holder, filter.urlPattern, EnumSet.of(DispatcherType.REQUEST));
        }
        for (LegacyWebApp.Component servlet : app.servlets) {
            ServletHolder holder = new ServletHolder();
            holder.setName(servlet.name);
            holder.setClassName(servlet.className);
            holder.setInitParameters(servlet.initParams);
            holder.setInitOrder(1);
            context.addServlet(holder, servlet.urlPattern);
        }
        contexts.addHandler(context);
        try {
            context.start();
        } catch (Exception e) {
            contexts.removeHandler(context);
            throw new IllegalStateException("webapp " + app.contextPath + " did not start on Jetty 9.4: " + e, e);
        }
        if (!context.isAvailable()) {
            undeploy(app.contextPath);
            throw new IllegalStateException("webapp " + app.contextPath + " did not start on Jetty 9.4");
        }
        return URI.create("http://127.0.0.1:" + port + app.contextPath + "/");
    }

    @Override
    public void undeploy(String contextPath) {
        Handler[] handlers = contexts.getHandlers();
        for (Handler handler : handlers == null ? new Handler[0] : handlers) {
            ServletContextHandler context = (ServletContextHandler) handler;
            if (context.getContextPath().equals(contextPath)) {
                try {
                    context.stop();
                } catch (Exception e) {
                    throw new IllegalStateException("webapp " + contextPath + " did not stop", e);
                }
                contexts.removeHandler(context);
            }
        }
    }

    @Override
    public void stop() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty 9.4 did not stop", e);
        }
    }
}
