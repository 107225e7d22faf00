package dev.ratelimit.testing.legacy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** Embedded Tomcat 9 (Servlet 4.0, javax.servlet) on a free port of the loopback address. */
final class Tomcat9 implements LegacyContainer {
    private final Tomcat tomcat = new Tomcat();
    private final int port;

    Tomcat9() {
        try {
            tomcat.setBaseDir(Files.createTempDirectory("tomcat9-").toString());
            tomcat.setHostname("127.0.0.1");
            tomcat.setPort(0);
            tomcat.getConnector().setProperty("address", "127.0.0.1");
            tomcat.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (LifecycleException e) {
            throw new IllegalStateException("Tomcat 9 did not start", e);
        }
        port = tomcat.getConnector().getLocalPort();
    }

    @Override
    public String name() {
        return "tomcat-9";
    }

    @Override
    public URI deploy(LegacyWebApp app) {
        // Configured completely before it joins the started host, which starts it at once.
        StandardContext context = new StandardContext();
        context.setName(app.contextPath);
        context.setPath(app.contextPath);
        context.addLifecycleListener(new Tomcat.FixContextListener());
        // As a deployment should: a servlet whose init() fails (a JAX-RS runtime refusing a resource) fails the webapp.
        context.setFailCtxIfServletStartFails(true);
        app.contextParams.forEach(context::addParameter);
        for (LegacyWebApp.Component filter : app.filters) {
            FilterDef def = new FilterDef();
            def.setFilterName(filter.name);
            def.setFilterClass(filter.className);
            filter.initParams.forEach(def::addInitParameter);
            context.addFilterDef(def);
            FilterMap mapping = new FilterMap();
            mapping.setFilterName(filter.name);
            mapping.addURLPattern(filter.urlPattern);
            context.addFilterMap(mapping);
        }
        for (LegacyWebApp.Component servlet : app.servlets) {
            Wrapper wrapper = Tomcat.addServlet(context, servlet.name, servlet.className);
            servlet.initParams.forEach(wrapper::addInitParameter);
            wrapper.setLoadOnStartup(1);
            context.addServletMappingDecoded(servlet.urlPattern, servlet.name);
        }
        tomcat.getHost().addChild(context);
        // A filter or servlet whose init() threw leaves the context failed, not started.
        if (context.getState() != LifecycleState.STARTED) {
            undeploy(app.contextPath);
            throw new IllegalStateException("webapp " + app.contextPath + " did not start on Tomcat 9");
        }
        return URI.create("http://127.0.0.1:" + port + app.contextPath + "/");
    }

    @Override
    public void undeploy(String contextPath) {
        org.apache.catalina.Container context = tomcat.getHost().findChild(contextPath);
        if (context != null) {
            tomcat.getHost().removeChild(context);
        }
    }

    @Override
    public void stop() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException("Tomcat 9 did not stop", e);
        }
    }
}
