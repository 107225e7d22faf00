package dev.ratelimit.example;

import dev.ratelimit.RedisSettings;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerStrategy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.ClassMatcher;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Starts the example WAR on embedded Jetty 12: the README's run command. Uses {@code REDIS_URL}
 * when set; otherwise starts a Redis of its own ({@code redis-server} on the PATH, else the binary
 * of the embedded-redis artifact) on a free port and stops it on exit. A development runner, kept
 * in test sources so that none of it ships in the WAR.
 */
public final class Launcher implements AutoCloseable {
    private final Server server;
    private final RedisServerExtension embeddedRedis;
    private final Path overrideDescriptor;
    private final String redisUri;

    private Launcher(Server server, RedisServerExtension embeddedRedis, Path overrideDescriptor, String redisUri) {
        this.server = server;
        this.embeddedRedis = embeddedRedis;
        this.overrideDescriptor = overrideDescriptor;
        this.redisUri = redisUri;
    }

    /** A start that cannot happen, with one line saying what to do. */
    static final class LaunchException extends Exception {
        private static final long serialVersionUID = 1L;

        LaunchException(String message) {
            super(message);
        }
    }

    /** The launcher's slf4j-simple level for Jetty's own loggers. */
    private static final String JETTY_LOG_LEVEL = "org.slf4j.simpleLogger.log.org.eclipse.jetty";

    /** {@code Launcher <war> <port>}; the environment's {@code REDIS_URL} is used when set. */
    public static void main(String[] args) throws Exception {
        // The first screen is the example's: Jetty's start-up lines only when they warn (-D overrides).
        if (System.getProperty(JETTY_LOG_LEVEL) == null) {
            System.setProperty(JETTY_LOG_LEVEL, "warn");
        }
        Path war = Path.of(args.length > 0 ? args[0] : "example-webapp/target/ratelimit-example-webapp.war");
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 8080;
        Launcher launcher;
        try {
            launcher = start(war, port, System.getenv("REDIS_URL"), true);
        } catch (LaunchException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            launcher.close();
            System.out.println("Stopped the example" + (launcher.embeddedRedis != null ? " and its embedded Redis." : "."));
        }, "example-shutdown"));
        System.out.println();
        System.out.println("  The example runs on http://localhost:" + port + "/  (Ctrl-C stops it)");
        System.out.println();
        launcher.server.join();
    }

    /**
     * Starts the example.
     *
     * @param redisUrl the Redis to use, or null to start an embedded one
     * @param talk whether to tell the console what happens
     * @throws LaunchException when the WAR is missing, the port is taken or Redis does not answer
     */
    static Launcher start(Path war, int port, String redisUrl, boolean talk) throws LaunchException {
        if (!Files.isRegularFile(war)) {
            throw new LaunchException("there is no WAR at " + war + "; run the README's command from the repository "
                    + "root, it builds one");
        }
        RedisServerExtension embedded = null;
        String uri;
        if (redisUrl != null && !redisUrl.isBlank()) {
            uri = redisUrl.trim();
            say(talk, "Using the Redis of REDIS_URL: " + checkAnswers(uri).redactedUri());
        } else {
            try {
                embedded = openEmbeddedRedis();
            } catch (RuntimeException e) {
                throw new LaunchException("REDIS_URL is not set and no embedded Redis could start (" + firstLine(e)
                        + "); set REDIS_URL=redis://host:port to use yours");
            }
            uri = embedded.uri();
            say(talk, "REDIS_URL is not set: started an embedded Redis (" + embedded.source() + ") at " + uri
                    + "; it stops with the example.");
        }
        Path override = null;
        Server server = new Server();
        try {
            override = overrideDescriptor(uri);
            ServerConnector connector = new ServerConnector(server);
            connector.setPort(port);
            server.addConnector(connector);
            WebAppContext webapp = new WebAppContext();
            webapp.setContextPath("/");
            webapp.setWar(war.toAbsolutePath().toString());
            // The WAR logs through its own SLF4J binding, as in any container; the launcher's, on this
            // class path for Jetty's lines, stays out of its sight, or SLF4J finds two bindings.
            webapp.addHiddenClassMatcher(new ClassMatcher("org.slf4j."));
            // The WAR says ${env:REDIS_URL:redis://localhost:6379}; point it at this Redis without
            // changing the WAR, as a deployer's override-web.xml would.
            webapp.addOverrideDescriptor(override.toString());
            webapp.setThrowUnavailableOnStartupException(true);
            server.setHandler(webapp);
            server.start();
            return new Launcher(server, embedded, override, uri);
        } catch (Exception e) {
            stopQuietly(server);
            if (embedded != null) {
                embedded.close();
            }
            deleteQuietly(override);
            if (e instanceof BindException || e.getCause() instanceof BindException) {
                throw new LaunchException("port " + port + " is in use; stop what uses it, or choose another port "
                        + "with -Dport=8081");
            }
            throw new LaunchException("the example webapp did not start: " + firstLine(e));
        }
    }

    /**
     * Starts a Redis of its own. The test support prints a line for its tests when it opens a server
     * (with a key prefix the example does not use); the console says it in the example's words instead.
     */
    private static RedisServerExtension openEmbeddedRedis() {
        return RedisServerExtension.forced(ServerStrategy.PATH, ServerStrategy.EMBEDDED).openUnannounced();
    }

    /** Parses REDIS_URL as the library does (user, password, database, TLS) and PINGs it. */
    private static RedisSettings checkAnswers(String uri) throws LaunchException {
        RedisSettings settings;
        try {
            settings = RedisSettings.builder(uri).timeout(Duration.ofSeconds(2)).build();
        } catch (IllegalArgumentException e) {
            throw new LaunchException("REDIS_URL is not usable: " + e.getMessage());
        }
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(2000).socketTimeoutMillis(2000).ssl(settings.tls())
                .database(settings.database()).user(settings.user()).password(settings.password());
        try (Jedis jedis = new Jedis(new HostAndPort(settings.host(), settings.port()), config.build())) {
            jedis.ping();
        } catch (RuntimeException e) {
            throw new LaunchException("Redis at " + settings.redactedUri() + " does not answer (" + firstLine(e)
                    + "); start it, fix REDIS_URL, or unset REDIS_URL to use an embedded Redis");
        }
        return settings;
    }

    private static Path overrideDescriptor(String redisUri) throws IOException {
        Path file = Files.createTempFile("ratelimit-example-override-", ".xml");
        String escaped = redisUri.replace("&", "&amp;").replace("<", "&lt;");
        Files.writeString(file, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">\n"
                + "  <context-param>\n    <param-name>ratelimit.redisUri</param-name>\n"
                + "    <param-value>" + escaped + "</param-value>\n  </context-param>\n</web-app>\n");
        return file;
    }

    /** The port the example listens on. */
    int port() {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /** The Redis the example uses. */
    String redisUri() {
        return redisUri;
    }

    /** The embedded Redis, or null when REDIS_URL was used. */
    RedisServerExtension embeddedRedis() {
        return embeddedRedis;
    }

    /** Stops the webapp (closing its Redis clients), then the embedded Redis. */
    @Override
    public synchronized void close() {
        stopQuietly(server);
        if (embeddedRedis != null) {
            embeddedRedis.close();
        }
        deleteQuietly(overrideDescriptor);
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception e) {
            System.err.println("WARNING: Jetty did not stop cleanly: " + firstLine(e));
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static void say(boolean talk, String line) {
        if (talk) {
            System.out.println(line);
        }
    }
}
