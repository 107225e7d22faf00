package dev.ratelimit.servlet.legacy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
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
            Path base = Files.createTempDirectory("tomcat9-");
            tomcat.setBaseDir(base.toString());
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
    public URI deploy(String contextPath, String filterClass, Map<String, String> initParams,
            Map<String, String> contextParams) {
        // Configured completely before it joins the started host, which starts it at once.
        StandardContext context = new StandardContext();
        context.setName(contextPath);
        context.setPath(contextPath);
        context.addLifecycleListener(new Tomcat.FixContextListener());
        contextParams.forEach(context::addParameter);
        Tomcat.addServlet(context, "ping", new PingServlet());
        context.addServletMappingDecoded("/*", "ping");
        FilterDef filter = new FilterDef();
        filter.setFilterName("limited");
        filter.setFilterClass(filterClass);
        initParams.forEach(filter::addInitParameter);
        context.addFilterDef(filter);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName("limited");
        mapping.addURLPattern("/*");
        context.addFilterMap(mapping);
        tomcat.getHost().addChild(context);
        // A filter whose init() threw leaves the context failed, not started.
        if (context.getState() != LifecycleState.STARTED) {
            undeploy(contextPath);
            throw new IllegalStateException("webapp " + contextPath + " did not start on Tomcat 9");
        }
        return URI.create("http://127.0.0.1:" + port + contextPath + "/");
    }

    @Override
    public void undeploy(String contextPath) {
        Context context = (Context) tomcat.getHost().findChild(contextPath);
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
