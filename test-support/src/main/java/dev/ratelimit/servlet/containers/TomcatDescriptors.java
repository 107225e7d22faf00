package dev.ratelimit.servlet.containers;

import org.apache.catalina.Wrapper;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.ContextConfig;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;

/** Embedded Tomcat reading a webapp's own {@code web.xml}, as for a deployed WAR ({@link AppDescriptor.Builder#webXml}). */
final class TomcatDescriptors {
    private TomcatDescriptors() {
    }

    /**
     * A context that reads its WEB-INF/web.xml as Tomcat reads a deployed WAR's ({@link ContextConfig}:
     * the descriptor's version, login-config and constraints, the authenticator they call for), with
     * what conf/web.xml gives every webapp that matters here: the default servlet on "/" and the MIME
     * types. The class path is not scanned for fragments (the test class path is not a WAR's lib).
     */
    static void readsItsDescriptor(StandardContext ctx, AppDescriptor app, Tomcat t) {
        ContextConfig config = new ContextConfig();
        config.setDefaultWebXml(t.noDefaultWebXmlPath());
        ctx.addLifecycleListener(config);
        StandardJarScanner scanner = new StandardJarScanner();
        scanner.setScanClassPath(false);
        ctx.setJarScanner(scanner);
        Wrapper files = ctx.createWrapper();
        files.setName("default");
        files.setServletClass("org.apache.catalina.servlets.DefaultServlet");
        files.setLoadOnStartup(1);
        files.setOverridable(true);
        ctx.addChild(files);
        ctx.addServletMappingDecoded("/", "default");
        Tomcat.addDefaultMimeTypeMappings(ctx);
        // The engine's realm is the Tomcat instance's own users (Tomcat.createDefaultRealm).
        for (UserDecl user : app.users()) {
            t.addUser(user.name(), user.password());
            user.roles().forEach(role -> t.addRole(user.name(), role));
        }
    }
}
