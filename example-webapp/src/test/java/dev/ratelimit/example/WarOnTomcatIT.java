package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ApplicationParameter;
import org.apache.tomcat.util.http.fileupload.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The built WAR file, unchanged, in an embedded Tomcat 11: the same answers as on Jetty. */
class WarOnTomcatIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Path WAR = Path.of(System.getProperty("example.war", "target/missing.war"));

    @Test
    void theWarDeploysIntoTomcatAndLimits() throws Exception {
        assertThat(WAR).isRegularFile();
        Path base = Files.createTempDirectory("example-tomcat-");
        Tomcat tomcat = new Tomcat();
        try {
            tomcat.setBaseDir(base.toString());
            tomcat.setPort(0);
            tomcat.getConnector();
            tomcat.getHost().setAppBase(base.toString());
            // Tomcat's defaults add a JSP servlet, and this test has no Jasper: add only the default servlet.
            tomcat.setAddDefaultWebXmlToWebapp(false);
            Context context = tomcat.addWebapp("", WAR.toAbsolutePath().toString());
            Wrapper defaultServlet = context.createWrapper();
            defaultServlet.setName("default");
            defaultServlet.setServletClass("org.apache.catalina.servlets.DefaultServlet");
            defaultServlet.setLoadOnStartup(1);
            context.addChild(defaultServlet);
            context.addServletMappingDecoded("/", "default");
            context.addMimeMapping("html", "text/html");
            // As a <Parameter override="false"> in context.xml: the deployer points the WAR at a Redis.
            ApplicationParameter redisUri = new ApplicationParameter();
            redisUri.setName("ratelimit.redisUri");
            redisUri.setValue(redis.uri());
            redisUri.setOverride(false);
            context.addApplicationParameter(redisUri);
            tomcat.start();
            assertThat(context.getState()).isEqualTo(LifecycleState.STARTED);

            ExampleAnswers.check(URI.create("http://localhost:" + tomcat.getConnector().getLocalPort() + "/"));
        } finally {
            tomcat.stop();
            tomcat.destroy();
            FileUtils.deleteDirectory(new File(base.toString()));
        }
    }
}
