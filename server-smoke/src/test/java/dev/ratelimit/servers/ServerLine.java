package dev.ratelimit.servers;

import java.nio.file.Path;

/**
 * A server line a legacy team runs that the embedded suites do not: which distribution, which
 * servlet namespace its WARs are written for, and how it is started.
 */
enum ServerLine {
    TOMCAT_8_5("Tomcat 8.5", Namespace.JAVAX, "ratelimit.smoke.tomcat85", null),
    JETTY_10("Jetty 10", Namespace.JAVAX, "ratelimit.smoke.jetty10", "deploy"),
    JETTY_12_EE8("Jetty 12 ee8", Namespace.JAVAX, "ratelimit.smoke.jetty120", "ee8-deploy"),
    TOMCAT_10_0("Tomcat 10.0", Namespace.JAKARTA, "ratelimit.smoke.tomcat100", null),
    TOMCAT_10_1("Tomcat 10.1", Namespace.JAKARTA, "ratelimit.smoke.tomcat101", null),
    JETTY_11("Jetty 11", Namespace.JAKARTA, "ratelimit.smoke.jetty11", "deploy"),
    JETTY_12_EE9("Jetty 12 ee9", Namespace.JAKARTA, "ratelimit.smoke.jetty120", "ee9-deploy");

    /** Which servlet API the server's webapps are compiled against, hence which filter jar they ship. */
    enum Namespace {
        JAVAX, JAKARTA
    }

    private final String label;
    private final Namespace namespace;
    private final String homeProperty;
    private final String jettyDeployModule;

    ServerLine(String label, Namespace namespace, String homeProperty, String jettyDeployModule) {
        this.label = label;
        this.namespace = namespace;
        this.homeProperty = homeProperty;
        this.jettyDeployModule = jettyDeployModule;
    }

    Namespace namespace() {
        return namespace;
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
