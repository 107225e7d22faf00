package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.ServerLine.Descriptor;
import dev.ratelimit.servers.ServerLine.Namespace;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An exploded WAR as a user builds one from the documentation: its web.xml is the "web.xml snippet"
 * block of the configuration reference (docs/configuration.md), WEB-INF/lib the filter jar of the server's namespace with what it needs at run time, and
 * two static files behind the {@code /api/*} filter ({@code api/orders}, and {@code api/health},
 * which the snippet excludes from limiting), and one behind its {@code /login} filter.
 */
final class SmokeWar {
    private static final String SNIPPET_MARKER = "<!-- web.xml snippet";
    private static final String README_REDIS_URI = "${env:REDIS_URL:redis://localhost:6379}";

    private final String snippet;
    private final Map<String, String> contextParams = new LinkedHashMap<>();
    /** Jars of the application's own, in WEB-INF/lib beside the filter's. */
    private final List<Path> ownJars = new ArrayList<>();
    /** Where the all-in-one jars are, when the WAR takes one instead of the plain jars; else null. */
    private Path allInOne;
    /** The application's own servlets: web.xml declarations, and where their classes are compiled. */
    private final StringBuilder servlets = new StringBuilder();
    private Path classes;

    private SmokeWar(String snippet) {
        this.snippet = snippet;
    }

    /** README's snippet, unchanged. */
    static SmokeWar readme() throws IOException {
        String readme = Files.readString(Path.of("..", "docs", "configuration.md"));
        int marker = readme.indexOf(SNIPPET_MARKER);
        assertThat(marker).as("the configuration reference marks its web.xml snippet").isPositive();
        int start = readme.indexOf("```xml", marker) + "```xml".length();
        String snippet = readme.substring(start, readme.indexOf("```", start));
        assertThat(snippet).as("the snippet takes Redis from REDIS_URL").contains(README_REDIS_URI);
        return new SmokeWar(snippet);
    }

    /** The snippet with its Redis given as {@code uri} instead of REDIS_URL. */
    SmokeWar redisUri(String uri) {
        return edited(snippet.replace(README_REDIS_URI, uri));
    }

    /** The snippet with one more init-param on its first filter, {@code api}. */
    SmokeWar apiInitParam(String name, String value) {
        String api = "<filter-name>api</filter-name>";
        int at = snippet.indexOf(api);
        assertThat(at).as("the snippet has a filter named api").isNotNegative();
        at += api.length();
        return edited(snippet.substring(0, at) + "\n  <init-param><param-name>" + name + "</param-name><param-value>"
                + value + "</param-value></init-param>" + snippet.substring(at));
    }

    /**
     * The snippet with one more context-param, such as {@code ratelimit.keyPrefix}: the tests add
     * a key prefix of their own, so that runs of the suite never share a bucket and the ACL user of
     * a server may touch only its keys.
     */
    SmokeWar contextParam(String name, String value) {
        SmokeWar copy = edited(snippet);
        copy.contextParams.put(name, value);
        return copy;
    }

    /** The WAR with the jars in {@code dir} in its WEB-INF/lib too: a legacy application's own libraries. */
    SmokeWar withOwnJars(Path dir) throws IOException {
        SmokeWar copy = edited(snippet);
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.jar")) {
            jars.forEach(copy.ownJars::add);
        }
        assertThat(copy.ownJars).as("jars in " + dir).isNotEmpty();
        return copy;
    }

    /**
     * The WAR with the all-in-one jar of its namespace (found in {@code dir}) in WEB-INF/lib instead
     * of the plain jars: only it and SLF4J, which it leaves to the webapp.
     */
    SmokeWar allInOne(Path dir) {
        SmokeWar copy = edited(snippet);
        copy.allInOne = dir;
        return copy;
    }

    /**
     * The WAR with a servlet of the application's own: {@code declaration} goes into web.xml as it
     * is (its {@code <servlet>} and {@code <servlet-mapping>}), the classes compiled into
     * {@code compiled} into WEB-INF/classes.
     */
    SmokeWar withServlet(String declaration, Path compiled) {
        SmokeWar copy = edited(snippet);
        copy.servlets.setLength(0);
        copy.servlets.append(declaration);
        copy.classes = compiled;
        return copy;
    }

    private SmokeWar edited(String text) {
        SmokeWar copy = new SmokeWar(text);
        copy.contextParams.putAll(contextParams);
        copy.ownJars.addAll(ownJars);
        copy.allInOne = allInOne;
        copy.servlets.append(servlets);
        copy.classes = classes;
        return copy;
    }

    /**
     * Writes the exploded WAR as {@code into/name} with a web.xml of version {@code descriptor}, and
     * the jars of its namespace.
     */
    Path writeTo(Path into, String name, Descriptor descriptor, Path webappLib) throws IOException {
        Namespace namespace = descriptor.namespace();
        Path war = Files.createDirectories(into.resolve(name));
        Path webInf = Files.createDirectories(war.resolve("WEB-INF"));
        String header = descriptor.header();
        StringBuilder added = new StringBuilder();
        contextParams.forEach((param, value) -> added.append("<context-param><param-name>").append(param)
                .append("</param-name><param-value>").append(value).append("</param-value></context-param>\n"));
        Files.writeString(webInf.resolve("web.xml"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + header + "\n"
                + added + snippet + "\n" + servlets + "\n</web-app>\n");
        Path lib = Files.createDirectories(webInf.resolve("lib"));
        if (classes != null) {
            StandaloneServer.copyTree(classes, webInf.resolve("classes"));
        }
        if (allInOne != null) {
            copyAllInOne(namespace, webappLib, lib);
        } else {
            copyPlainJars(namespace, webappLib, lib);
        }
        for (Path jar : ownJars) {
            Files.copy(jar, lib.resolve(jar.getFileName().toString()));
        }
        Path api = Files.createDirectories(war.resolve("api"));
        Files.writeString(api.resolve("orders"), "orders\n");
        Files.writeString(api.resolve("health"), "ok\n");
        // Behind the snippet's login filter: the server's own default servlet answers a form post to it.
        Files.writeString(war.resolve("login"), "login\n");
        return war;
    }

    private void copyAllInOne(Namespace namespace, Path webappLib, Path lib) throws IOException {
        String jarName = namespace == Namespace.JAVAX ? "ratelimit-all-javax-" : "ratelimit-all-";
        int found = 0;
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(allInOne, jarName + "*.jar")) {
            for (Path jar : jars) {
                if (namespace == Namespace.JAKARTA && jar.getFileName().toString().startsWith("ratelimit-all-javax-")) {
                    continue;
                }
                Files.copy(jar, lib.resolve(jar.getFileName().toString()));
                found++;
            }
        }
        assertThat(found).as("one all-in-one jar for " + namespace + " in " + allInOne).isEqualTo(1);
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(webappLib, "slf4j-*.jar")) {
            for (Path jar : jars) {
                Files.copy(jar, lib.resolve(jar.getFileName().toString()));
            }
        }
    }

    private static void copyPlainJars(Namespace namespace, Path webappLib, Path lib) throws IOException {
        int filterJars = 0;
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(webappLib, "*.jar")) {
            for (Path jar : jars) {
                String file = jar.getFileName().toString();
                boolean javaxFilter = file.startsWith("ratelimit-filter-javax-");
                boolean jakartaFilter = !javaxFilter && file.startsWith("ratelimit-filter-");
                if (javaxFilter && namespace != Namespace.JAVAX || jakartaFilter && namespace != Namespace.JAKARTA) {
                    continue;
                }
                filterJars += javaxFilter || jakartaFilter ? 1 : 0;
                Files.copy(jar, lib.resolve(file));
            }
        }
        assertThat(filterJars).as("one filter jar for " + namespace + " in " + webappLib).isEqualTo(1);
    }
}
