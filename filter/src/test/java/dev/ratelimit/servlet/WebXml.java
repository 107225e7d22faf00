package dev.ratelimit.servlet;

import java.util.Map;

/**
 * A {@code WEB-INF/web.xml} as users write one, for tests whose container reads the descriptor
 * itself ({@code AppDescriptor.webXml}): the header of each Servlet version, and its elements.
 */
final class WebXml {
    private WebXml() {
    }

    /**
     * A whole descriptor of that version around {@code body}: {@code 2.4} (J2EE namespace), {@code 2.5}
     * (Java EE), {@code 3.1} (the README's javax header).
     */
    static String of(String version, String body) {
        String namespace;
        switch (version) {
            case "2.4":
                namespace = "http://java.sun.com/xml/ns/j2ee";
                break;
            case "2.5":
                namespace = "http://java.sun.com/xml/ns/javaee";
                break;
            case "3.1":
                namespace = "http://xmlns.jcp.org/xml/ns/javaee";
                break;
            default:
                throw new IllegalArgumentException("no header for web.xml version " + version);
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<web-app xmlns=\"" + namespace + "\"\n"
                + "    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
                + "    xsi:schemaLocation=\"" + namespace + " " + namespace + "/web-app_" + version.replace('.', '_')
                + ".xsd\"\n    version=\"" + version + "\">\n" + body + "</web-app>\n";
    }

    /** A RateLimitFilter named {@code name} with these init-params; {@code more} (such as async-supported) before them. */
    static String filter(String name, String more, Map<String, String> initParams) {
        StringBuilder filter = new StringBuilder("<filter>\n  <filter-name>" + name + "</filter-name>\n  <filter-class>"
                + RateLimitFilter.class.getName() + "</filter-class>\n" + more);
        initParams.forEach((param, value) -> filter.append("  <init-param><param-name>").append(param)
                .append("</param-name><param-value>").append(value).append("</param-value></init-param>\n"));
        return filter.append("</filter>\n").toString();
    }

    /** A filter-mapping; no dispatcher is REQUEST alone. */
    static String filterMapping(String name, String urlPattern, String... dispatchers) {
        StringBuilder mapping = new StringBuilder("<filter-mapping>\n  <filter-name>" + name + "</filter-name>\n"
                + "  <url-pattern>" + urlPattern + "</url-pattern>\n");
        for (String dispatcher : dispatchers) {
            mapping.append("  <dispatcher>").append(dispatcher).append("</dispatcher>\n");
        }
        return mapping.append("</filter-mapping>\n").toString();
    }

    /** A servlet and its mapping; {@code more} (such as async-supported) after its class. */
    static String servlet(String name, String className, String urlPattern, String more) {
        return "<servlet>\n  <servlet-name>" + name + "</servlet-name>\n  <servlet-class>" + className
                + "</servlet-class>\n" + more + "</servlet>\n<servlet-mapping>\n  <servlet-name>" + name
                + "</servlet-name>\n  <url-pattern>" + urlPattern + "</url-pattern>\n</servlet-mapping>\n";
    }

    static final String ASYNC_SUPPORTED = "  <async-supported>true</async-supported>\n";
}
