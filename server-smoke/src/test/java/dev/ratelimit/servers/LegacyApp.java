package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.ServerLine.Namespace;
import dev.ratelimit.testing.Java8;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The legacy application of issue 38: a servlet of its own that counts visits in Redis through the
 * Jedis it carries ({@code new JedisPool(new JedisPoolConfig(), host, port)}, {@code incr}), built
 * the way its team built it: against that Jedis, for Java 8. Compiled here once per Jedis line and
 * servlet namespace, since Jedis 4 changed {@code incr}'s return type and the namespaces differ.
 */
final class LegacyApp {
    /** The old Jedis lines a legacy WAR carries, as the build copies them (jar and its pool, and so on). */
    enum JedisLine {
        JEDIS_2("jedis-2", "2.9.0"), JEDIS_3("jedis-3", "3.10.0"), JEDIS_4("jedis-4", "4.4.8");

        private final String directory;
        private final String version;

        JedisLine(String directory, String version) {
            this.directory = directory;
            this.version = version;
        }

        /** The jars of this line, as {@code server-smoke/pom.xml} copies them. */
        Path jars() {
            return Path.of(System.getProperty("ratelimit.smoke.oldRedisClients", "target/old-redis-clients"), directory);
        }

        String version() {
            return version;
        }

        /** How the jar is named in WEB-INF/lib and in the clash line. */
        String jar() {
            return "jedis-" + version + ".jar";
        }

        @Override
        public String toString() {
            return "Jedis " + version;
        }
    }

    private static final String SOURCE = """
            package legacy;

            import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
            import javax.servlet.http.HttpServlet;
            import javax.servlet.http.HttpServletRequest;
            import javax.servlet.http.HttpServletResponse;
            import redis.clients.jedis.Jedis;
            import redis.clients.jedis.JedisPool;
            import redis.clients.jedis.JedisPoolConfig;

            /** Counts visits in Redis with the application's own Jedis. */
            public class VisitsServlet extends HttpServlet {
                private JedisPool pool;

                @Override
                public void init() {
                    pool = new JedisPool(new JedisPoolConfig(), getInitParameter("host"),
                            Integer.parseInt(getInitParameter("port")));
                }

                @Override
                protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    try (Jedis jedis = pool.getResource()) {
                        response.setContentType("text/plain");
                        response.getWriter().print(jedis.incr(getInitParameter("key")));
                    }
                }

                @Override
                public void destroy() {
                    pool.close();
                }
            }
            """;

    private static final Map<String, Path> COMPILED = new ConcurrentHashMap<>();

    private LegacyApp() {
    }

    /** The servlet's classes for {@code namespace} and {@code jedis}, compiled under {@code work}. */
    static Path compiled(Namespace namespace, JedisLine jedis, Path work) {
        return COMPILED.computeIfAbsent(namespace + "-" + jedis, key -> compile(namespace, jedis, work.resolve(key)));
    }

    /** The web.xml lines that map the servlet to {@code /api/visits}, behind README's {@code api} filter. */
    static String declaration(String redisHost, int redisPort, String key) {
        return """
                <servlet>
                  <servlet-name>visits</servlet-name>
                  <servlet-class>legacy.VisitsServlet</servlet-class>
                  <init-param><param-name>host</param-name><param-value>%s</param-value></init-param>
                  <init-param><param-name>port</param-name><param-value>%d</param-value></init-param>
                  <init-param><param-name>key</param-name><param-value>%s</param-value></init-param>
                </servlet>
                <servlet-mapping>
                  <servlet-name>visits</servlet-name>
                  <url-pattern>/api/visits</url-pattern>
                </servlet-mapping>
                """.formatted(redisHost, redisPort, key);
    }

    private static Path compile(Namespace namespace, JedisLine jedis, Path out) {
        String source = namespace == Namespace.JAVAX ? SOURCE : SOURCE.replace("javax.servlet.", "jakarta.servlet.");
        List<Path> classPath = new ArrayList<>();
        // The servlet API as the server line of the namespace has it.
        ServerLine api = namespace == Namespace.JAVAX ? ServerLine.TOMCAT_9 : ServerLine.TOMCAT_10_1;
        classPath.add(api.home().resolve("lib/servlet-api.jar"));
        classPath.addAll(jars(jedis.jars(), "*.jar"));
        return Java8.compile("legacy.VisitsServlet", source, classPath, out);
    }

    /** The jars in {@code dir} whose names match {@code glob}. */
    static List<Path> jars(Path dir, String glob) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, glob)) {
            jars.forEach(found::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(found).as(glob + " in " + dir).isNotEmpty();
        return found;
    }
}
