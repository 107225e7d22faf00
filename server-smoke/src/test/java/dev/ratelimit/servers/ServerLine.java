package dev.ratelimit.servers;

import dev.ratelimit.testing.Java8;
import java.nio.file.Path;

/**
 * A server line a legacy team runs, as its standalone distribution: which servlet namespace its
 * WARs are written for, how it is started, and on which JVM. The lines that still run on Java 8
 * (Tomcat 7, 8.5 and 9, Jetty 9.4) run on the Java 8 JRE the build is given ({@link Java8};
 * {@code .ci/runtimes} fetches a real OpenJDK 8), else on the build's own JVM.
 */
enum ServerLine {
    TOMCAT_7("Tomcat 7", Descriptor.SERVLET_3_0, "ratelimit.smoke.tomcat7", null, true),
    TOMCAT_8_5("Tomcat 8.5", Descriptor.SERVLET_3_1, "ratelimit.smoke.tomcat85", null, true),
    TOMCAT_9("Tomcat 9", Descriptor.SERVLET_3_1, "ratelimit.smoke.tomcat9", null, true),
    JETTY_9_4("Jetty 9.4", Descriptor.SERVLET_3_1, "ratelimit.smoke.jetty94", "deploy", true),
    JETTY_10("Jetty 10", Descriptor.SERVLET_3_1, "ratelimit.smoke.jetty10", "deploy", false),
    JETTY_12_EE8("Jetty 12 ee8", Descriptor.SERVLET_3_1, "ratelimit.smoke.jetty120", "ee8-deploy", false),
    TOMCAT_10_0("Tomcat 10.0", Descriptor.SERVLET_5_0, "ratelimit.smoke.tomcat100", null, false),
    TOMCAT_10_1("Tomcat 10.1", Descriptor.SERVLET_5_0, "ratelimit.smoke.tomcat101", null, false),
    JETTY_11("Jetty 11", Descriptor.SERVLET_5_0, "ratelimit.smoke.jetty11", "deploy", false),
    JETTY_12_EE9("Jetty 12 ee9", Descriptor.SERVLET_5_0, "ratelimit.smoke.jetty120", "ee9-deploy", false),
    JETTY_12_EE10("Jetty 12 ee10", Descriptor.SERVLET_5_0, "ratelimit.smoke.jetty120", "ee10-deploy", false);

    /** Which servlet API the server's webapps are compiled against, hence which filter jar they ship. */
    enum Namespace {
        JAVAX, JAKARTA
    }

    /**
     * The {@code <web-app>} a user of the line writes: Tomcat 7 implements Servlet 3.0, so its users
     * write a 3.0 descriptor (the schema of the java.sun.com namespace); the other javax lines take
     * 3.1, the jakarta ones 5.0.
     */
    enum Descriptor {
        SERVLET_3_0(Namespace.JAVAX, "<web-app xmlns=\"http://java.sun.com/xml/ns/javaee\" version=\"3.0\">"),
        SERVLET_3_1(Namespace.JAVAX, "<web-app xmlns=\"http://xmlns.jcp.org/xml/ns/javaee\" version=\"3.1\">"),
        SERVLET_5_0(Namespace.JAKARTA, "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"5.0\">");

        private final Namespace namespace;
        private final String header;

        Descriptor(Namespace namespace, String header) {
            this.namespace = namespace;
            this.header = header;
        }

        Namespace namespace() {
            return namespace;
        }

        /** The opening {@code <web-app>} element of a web.xml of this version. */
        String header() {
            return header;
        }
    }

    private final String label;
    private final Descriptor descriptor;
    private final String homeProperty;
    private final String jettyDeployModule;
    private final boolean runsOnJava8;

    ServerLine(String label, Descriptor descriptor, String homeProperty, String jettyDeployModule, boolean runsOnJava8) {
        this.label = label;
        this.descriptor = descriptor;
        this.homeProperty = homeProperty;
        this.jettyDeployModule = jettyDeployModule;
        this.runsOnJava8 = runsOnJava8;
    }

    /** The {@code java} that starts this line: Java 8's when the build gave one and the line runs on it. */
    Path java() {
        return onJava8() ? Java8.javaOrThisJvm() : Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** Whether this line runs on the Java 8 JVM the build gave. */
    boolean onJava8() {
        return runsOnJava8 && Java8.given();
    }

    Namespace namespace() {
        return descriptor.namespace();
    }

    /** The web.xml version the line's users write. */
    Descriptor descriptor() {
        return descriptor;
    }

    boolean isJetty() {
        return jettyDeployModule != null;
    }

    /** The Jetty module that deploys {@code webapps/}: Jetty 12 has one per EE environment. */
    String jettyDeployModule() {
        return jettyDeployModule;
    }

    /** The unpacked distribution, as the build's pre-integration-test phase left it. */
    Path home() {
        String servers = System.getProperty("ratelimit.smoke.servers");
        String dir = System.getProperty(homeProperty);
        if (servers == null || dir == null) {
            throw new IllegalStateException("run through Maven (mvn verify -pl server-smoke): " + homeProperty
                    + " and ratelimit.smoke.servers are set by the build, which unpacks the servers");
        }
        return Path.of(servers, dir);
    }

    @Override
    public String toString() {
        return label;
    }
}
