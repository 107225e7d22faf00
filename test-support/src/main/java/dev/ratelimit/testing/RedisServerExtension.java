package dev.ratelimit.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

import java.time.Duration;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * JUnit 5 extension that gives each test class its own real Redis server.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 * }</pre>
 *
 * <p>In {@code beforeAll} the first of these that works wins (see {@link Strategy}):
 * <ol>
 *   <li>{@link Strategy#URL}: the server named by the environment variable {@code REDIS_URL}
 *       (or the system property {@code redis.url}). It is shared, so it is never flushed, configured
 *       or shut down: tests must only write keys under {@link #keyPrefix()}. If {@code REDIS_URL} is
 *       set but the server does not answer, {@code beforeAll} fails instead of silently using another
 *       server.</li>
 *   <li>{@link Strategy#TESTCONTAINERS}: a {@code redis:7.0-alpine} container, when Docker answers.</li>
 *   <li>{@link Strategy#PATH}: a {@code redis-server} binary found on {@code PATH}, started on a free
 *       port of 127.0.0.1.</li>
 *   <li>{@link Strategy#EMBEDDED}: the binary shipped in the embedded-redis jar, on a free port.</li>
 * </ol>
 * The system property {@code ratelimit.test.redis} ({@code url}, {@code testcontainers}, {@code path}
 * or {@code embedded}, or a comma separated list of them) forces the strategies to try. When nothing
 * works {@code beforeAll} throws an {@link IllegalStateException} that says how to provide Redis and
 * why each strategy failed; tests are never skipped.
 *
 * <p>The extension can also be used without JUnit: {@link #open()} / {@link #close()}, e.g.
 * {@code try (var r = RedisServerExtension.forced(Strategy.EMBEDDED).open()) { ... }}. {@code afterAll} /
 * {@link #close()} stop a server this extension started, delete its temporary directory and close the admin
 * client; on a shared {@code REDIS_URL} server they only delete the keys under {@link #keyPrefix()}.
 *
 * <p>This class is part of the test-support module and only needs JUnit, Jedis and, for the strategies that
 * use them, Testcontainers and embedded-redis on the test classpath.
 */
public final class RedisServerExtension extends ManagedRedisResource {

    /** System property that forces the strategy (or comma separated strategies) to try. */
    public static final String STRATEGY_PROPERTY = "ratelimit.test.redis";
    /** Environment variable naming an existing server, e.g. {@code redis://127.0.0.1:6379}. */
    public static final String REDIS_URL_ENV = "REDIS_URL";
    /** System property alternative to {@link #REDIS_URL_ENV}. */
    public static final String REDIS_URL_PROPERTY = "redis.url";
    /** Docker image used by {@link Strategy#TESTCONTAINERS}. */
    public static final String DOCKER_IMAGE = "redis:7.0-alpine";

    /** Ways to obtain a Redis server, in their default order of preference. */
    public enum Strategy {
        /** An existing server named by {@code REDIS_URL} / {@code -Dredis.url}; not owned. */
        URL("url", "REDIS_URL"),
        /** A {@code redis:7.0-alpine} container started through Testcontainers. */
        TESTCONTAINERS("testcontainers", "testcontainers"),
        /** A {@code redis-server} binary found on {@code PATH}, started as a child process. */
        PATH("path", "redis-server on PATH"),
        /** The {@code redis-server} binary shipped inside the embedded-redis jar, started as a child process. */
        EMBEDDED("embedded", "embedded-redis");

        private final String propertyValue;
        private final String source;

        Strategy(String propertyValue, String source) {
            this.propertyValue = propertyValue;
            this.source = source;
        }

        /**
         * The value that selects this strategy in {@value RedisServerExtension#STRATEGY_PROPERTY}.
         *
         * @return e.g. {@code "embedded"}
         */
        public String propertyValue() {
            return propertyValue;
        }

        /**
         * The label {@link RedisServerExtension#source()} reports for a server obtained this way.
         *
         * @return e.g. {@code "redis-server on PATH"}
         */
        public String source() {
            return source;
        }

        static Strategy parse(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            for (Strategy s : values()) {
                if (s.propertyValue.equals(v) || s.name().toLowerCase(Locale.ROOT).equals(v)) {
                    return s;
                }
            }
            throw new IllegalStateException("Unknown value '" + value + "' in -D" + STRATEGY_PROPERTY
                    + "; use one of url, testcontainers, path, embedded (or a comma separated list)");
        }
    }

    private static final List<Strategy> DEFAULT_ORDER = List.of(Strategy.values());

    private final List<Strategy> forcedOrder;
    private final Function<String, String> env;
    private final Function<String, String> props;

    private Strategy strategy;
    private ServerHandle server;
    private RedisClient client;
    private String uri;

    /**
     * Creates an extension that resolves its server in the default order (or the order forced with
     * {@value #STRATEGY_PROPERTY}) when the test class starts.
     */
    public RedisServerExtension() {
        this(null, System::getenv, System::getProperty);
    }

    /**
     * Package-private seam for tests: explicit strategy order (null: property or default order) and
     * replaceable environment / system property lookups.
     */
    RedisServerExtension(List<Strategy> forcedOrder, Function<String, String> env, Function<String, String> props) {
        this.forcedOrder = forcedOrder == null ? null : List.copyOf(forcedOrder);
        this.env = Objects.requireNonNull(env, "env");
        this.props = Objects.requireNonNull(props, "props");
    }

    /**
     * Creates an extension that only tries the given strategies, in the given order, ignoring
     * {@value #STRATEGY_PROPERTY}. Useful to exercise one fallback, e.g.
     * {@code RedisServerExtension.forced(Strategy.EMBEDDED).open()}.
     *
     * @param strategies the strategies to try, first that works wins; at least one
     * @return a new, not yet opened extension
     */
    public static RedisServerExtension forced(Strategy... strategies) {
        if (strategies.length == 0) {
            throw new IllegalArgumentException("forced() needs at least one strategy");
        }
        return new RedisServerExtension(Arrays.asList(strategies), System::getenv, System::getProperty);
    }

    // ------------------------------------------------------------------------------------------
    // Lifecycle (beforeAll / afterAll / close: see ManagedRedisResource)
    // ------------------------------------------------------------------------------------------

    /**
     * Obtains a server and opens the admin client, exactly as {@code beforeAll} does; for use outside
     * JUnit's lifecycle. Calls nest: each {@code open()} needs a matching {@link #close()}.
     *
     * @return this extension, for try-with-resources
     * @throws IllegalStateException when no strategy could provide a server; the message says how to
     *                               provide one and why each strategy failed
     */
    public RedisServerExtension open() {
        acquire();
        return this;
    }

    /**
     * Obtains the server (see the class comment for the order) and opens the admin client: the first of
     * the strategies that works wins.
     */
    @Override
    void doOpen() {
        List<Strategy> order = strategyOrder();
        Map<Strategy, String> failures = new LinkedHashMap<>();
        for (Strategy candidate : order) {
            ServerHandle handle;
            try {
                handle = tryStrategy(candidate, order != DEFAULT_ORDER);
            } catch (StrategyUnavailable e) {
                failures.put(candidate, e.getMessage());
                continue;
            } catch (ExplicitServerFailed e) {
                throw new IllegalStateException(e.getMessage(), e.getCause());
            } catch (RuntimeException | LinkageError e) {
                failures.put(candidate, describe(e));
                continue;
            }
            RedisClient admin = null;
            try {
                admin = adminClient(handle.uri());
                String pong = admin.ping();
                if (!"PONG".equalsIgnoreCase(pong)) {
                    throw new IllegalStateException("PING answered " + pong);
                }
            } catch (RuntimeException e) {
                closeQuietly(admin);
                handle.close();
                if (candidate == Strategy.URL) {
                    throw new IllegalStateException(urlFailureMessage(handle.uri(), describe(e)), e);
                }
                failures.put(candidate, "admin client could not talk to " + handle.uri() + ": " + describe(e));
                continue;
            }
            this.strategy = candidate;
            this.server = handle;
            this.client = admin;
            this.uri = handle.uri();
            return;
        }
        throw new IllegalStateException(nothingWorkedMessage(order, failures));
    }

    /**
     * An admin client whose pool runs no idle evictor: tests check that the library leaves no
     * {@code commons-pool-evictor} thread behind, so the test support must not start one either.
     */
    private static RedisClient adminClient(String uri) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        URI parsed = URI.create(uri);
        return RedisClient.builder().fromURI(parsed).poolConfig(pool).build();
    }

    /**
     * Stops a server this extension started, deletes its temporary directory and closes the admin client.
     * On a shared {@code REDIS_URL} server only the keys under {@link #keyPrefix()} are deleted.
     */
    @Override
    void doClose() {
        try {
            if (server != null && !server.owned() && client != null) {
                deleteOwnKeysQuietly();
            }
        } finally {
            closeQuietly(client);
            client = null;
            if (server != null) {
                server.close();
            }
            server = null;
            strategy = null;
            uri = null;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Accessors
    // ------------------------------------------------------------------------------------------

    /**
     * The server's address as a Redis URI.
     *
     * @return e.g. {@code redis://127.0.0.1:34567}; for {@code REDIS_URL} the URL as given
     */
    public synchronized String uri() {
        requireOpen();
        return uri;
    }

    /**
     * The host to connect to.
     *
     * @return e.g. {@code 127.0.0.1}
     */
    public synchronized String host() {
        requireOpen();
        return server.host();
    }

    /**
     * The port to connect to; it stays the same across {@link #stop()} / {@link #start()}.
     *
     * @return the TCP port
     */
    public synchronized int port() {
        requireOpen();
        return server.port();
    }

    /**
     * Which way the server was obtained.
     *
     * @return one of {@code "REDIS_URL"}, {@code "testcontainers"}, {@code "redis-server on PATH"},
     *         {@code "embedded-redis"} (see {@link Strategy#source()})
     */
    public synchronized String source() {
        requireOpen();
        return strategy.source();
    }

    /**
     * The strategy that provided the server.
     *
     * @return the winning strategy
     */
    public synchronized Strategy strategy() {
        requireOpen();
        return strategy;
    }

    /**
     * Whether this extension started the server (and so may stop, restart and discard it).
     *
     * @return {@code false} only for a shared {@code REDIS_URL} server
     */
    public synchronized boolean owned() {
        requireOpen();
        return server.owned();
    }

    /**
     * The admin client for the server, opened in {@code beforeAll} and closed in {@code afterAll}. Its
     * idle connections are dropped by {@link #start()}, so it keeps working across a restart.
     *
     * @return a pooled client (do not close it)
     */
    public synchronized UnifiedJedis client() {
        requireOpen();
        return client;
    }

    /**
     * All keys under {@link #keyPrefix()}, found with {@code SCAN} (never {@code KEYS}).
     *
     * @return the keys, sorted, without duplicates
     */
    public List<String> keys() {
        return scanOwnKeys(client());
    }

    private List<String> scanOwnKeys(UnifiedJedis c) {
        Set<String> found = new LinkedHashSet<>();
        ScanParams params = new ScanParams().match(keyPrefix() + "*").count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = c.scan(cursor, params);
            found.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
        List<String> sorted = new ArrayList<>(found);
        Collections.sort(sorted);
        return sorted;
    }

    // ------------------------------------------------------------------------------------------
    // Failure injection
    // ------------------------------------------------------------------------------------------

    /**
     * Kills the server (abruptly, like a crash): afterwards its port refuses connections. Does nothing if
     * it is already stopped. Data is lost; the server runs without persistence.
     *
     * @throws IllegalStateException when the server is not {@link #owned()} (a shared {@code REDIS_URL}
     *                               server is never stopped)
     */
    public synchronized void stop() {
        requireOwned("stop()");
        server.kill();
        client.getPool().clear();
    }

    /**
     * Starts the server again on the same host and port after {@link #stop()} and waits until it
     * answers {@code PING}. Does nothing if it is running.
     *
     * @throws IllegalStateException when the server is not {@link #owned()}, or when it does not come
     *                               back (e.g. the port was taken meanwhile)
     */
    public synchronized void start() {
        requireOwned("start()");
        server.restart();
        client.getPool().clear();
    }

    /**
     * Whether the server currently accepts connections and answers {@code PING} (within ~0.5 s).
     *
     * @return true when PING is answered with PONG
     */
    public synchronized boolean isAnswering() {
        requireOpen();
        return server.owned() ? RedisPing.answers(server.host(), server.port(), 500) : pingsWithClient();
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "RedisServerExtension[" + (isOpen() ? uri + " via " + strategy.source() : "not open")
                    + ", keyPrefix=" + keyPrefix() + "]";
        }
    }

    // ------------------------------------------------------------------------------------------
    // Resolution
    // ------------------------------------------------------------------------------------------

    private List<Strategy> strategyOrder() {
        if (forcedOrder != null) {
            return forcedOrder;
        }
        String forcedProperty = props.apply(STRATEGY_PROPERTY);
        if (forcedProperty == null || forcedProperty.isBlank()) {
            return DEFAULT_ORDER;
        }
        List<Strategy> order = new ArrayList<>();
        for (String part : forcedProperty.split(",")) {
            if (!part.isBlank()) {
                Strategy s = Strategy.parse(part);
                if (!order.contains(s)) {
                    order.add(s);
                }
            }
        }
        return order.isEmpty() ? DEFAULT_ORDER : order;
    }

    private ServerHandle tryStrategy(Strategy s, boolean explicitlyChosen) {
        switch (s) {
            case URL:
                return fromUrl();
            case TESTCONTAINERS:
                return fromTestcontainers(explicitlyChosen);
            case PATH:
                return fromPath();
            case EMBEDDED:
                return fromEmbedded();
            default:
                throw new AssertionError(s);
        }
    }

    private ServerHandle fromUrl() {
        String raw = env.apply(REDIS_URL_ENV);
        String origin = "REDIS_URL";
        if (raw == null || raw.isBlank()) {
            raw = props.apply(REDIS_URL_PROPERTY);
            origin = "-D" + REDIS_URL_PROPERTY;
        }
        if (raw == null || raw.isBlank()) {
            throw new StrategyUnavailable("not set (neither environment variable " + REDIS_URL_ENV
                    + " nor system property " + REDIS_URL_PROPERTY + ")");
        }
        String url = raw.trim();
        URI parsed;
        try {
            parsed = new URI(url);
        } catch (URISyntaxException e) {
            throw new ExplicitServerFailed(urlFailureMessage(url, origin + " is not a valid URI: " + e.getMessage()), e);
        }
        String scheme = parsed.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("redis") || scheme.equalsIgnoreCase("rediss"))
                || parsed.getHost() == null) {
            throw new ExplicitServerFailed(urlFailureMessage(url, origin
                    + " must look like redis://host:port (or rediss://, optionally with user:password@ and /db)"), null);
        }
        int port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
        return new ExternalServer(url, parsed.getHost(), port);
    }

    private ServerHandle fromTestcontainers(boolean explicitlyChosen) {
        if (!explicitlyChosen) {
            // Cheap check first, so that machines without Docker neither wait for nor log Testcontainers' probe.
            String hint = DockerHints.find(env, props);
            if (hint == null) {
                throw new StrategyUnavailable("no Docker found (DOCKER_HOST unset, no docker.host/tc.host in "
                        + "~/.testcontainers.properties, no socket at " + String.join(", ", DockerHints.socketCandidates(env))
                        + "); force the probe with -D" + STRATEGY_PROPERTY + "=testcontainers");
            }
        }
        if (!classPresent("org.testcontainers.DockerClientFactory")) {
            throw new StrategyUnavailable("org.testcontainers:testcontainers is not on the test classpath");
        }
        if (!RedisContainerServer.dockerAvailable()) {
            throw new StrategyUnavailable("Testcontainers found no working Docker environment "
                    + "(DockerClientFactory.isDockerAvailable() returned false)");
        }
        return RedisContainerServer.start(DOCKER_IMAGE);
    }

    private ServerHandle fromPath() {
        Path binary = findOnPath(env.apply("PATH"));
        if (binary == null) {
            throw new StrategyUnavailable("no executable redis-server on PATH");
        }
        return RedisProcessServer.start(binary, null, Strategy.PATH.source());
    }

    private ServerHandle fromEmbedded() {
        if (!classPresent("redis.embedded.core.ExecutableProvider")) {
            throw new StrategyUnavailable("com.github.codemonstur:embedded-redis is not on the test classpath");
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("ratelimit-embedded-redis-bin-");
            Path binary = EmbeddedRedisBinary.extractTo(dir);
            return RedisProcessServer.start(binary, dir, Strategy.EMBEDDED.source());
        } catch (IOException e) {
            RedisProcessServer.deleteRecursively(dir);
            throw new StrategyUnavailable("could not extract the redis-server binary from the embedded-redis jar: "
                    + describe(e));
        } catch (RuntimeException | LinkageError e) {
            RedisProcessServer.deleteRecursively(dir);
            throw e;
        }
    }

    private static Path findOnPath(String pathVariable) {
        return findOnPath(pathVariable, "redis-server");
    }

    /**
     * @param pathVariable the value of {@code PATH}
     * @param command      e.g. {@code redis-cli} ({@code .exe} is appended on Windows)
     * @return the first executable {@code command} on the path, or null
     */
    static Path findOnPath(String pathVariable, String command) {
        if (pathVariable == null || pathVariable.isBlank()) {
            return null;
        }
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String name = windows ? command + ".exe" : command;
        for (String dir : pathVariable.split(java.io.File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            try {
                Path candidate = Path.of(dir).resolve(name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toAbsolutePath();
                }
            } catch (RuntimeException ignored) {
                // invalid path entry
            }
        }
        return null;
    }

    private static boolean classPresent(String name) {
        try {
            Class.forName(name, false, RedisServerExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Messages and helpers
    // ------------------------------------------------------------------------------------------

    static String howToProvideRedis() {
        return "Provide Redis for the tests in one of these ways:\n"
                + "  - set REDIS_URL=redis://host:port (or -D" + REDIS_URL_PROPERTY + "=redis://host:port) to use a server"
                + " you run; tests only write keys under a random prefix and never flush it\n"
                + "  - start Docker, so that Testcontainers can run " + DOCKER_IMAGE + "\n"
                + "  - install redis-server on PATH (e.g. apt-get install redis-server, brew install redis)\n"
                + "Use -D" + STRATEGY_PROPERTY + "=url|testcontainers|path|embedded to force one way.";
    }

    private static String nothingWorkedMessage(List<Strategy> order, Map<Strategy, String> failures) {
        StringBuilder sb = new StringBuilder("No Redis server available for the tests.\n");
        sb.append(howToProvideRedis()).append("\nStrategies tried, in order:\n");
        for (Strategy s : order) {
            sb.append("  - ").append(s.propertyValue()).append(" (").append(s.source()).append("): ")
                    .append(failures.getOrDefault(s, "not tried")).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    private static String urlFailureMessage(String url, String reason) {
        return "REDIS_URL is set to " + url + " but that server cannot be used: " + reason
                + "\nFix or unset REDIS_URL (and -D" + REDIS_URL_PROPERTY + "); without it the tests start their own"
                + " server (Docker, redis-server on PATH, or the embedded-redis binary).";
    }

    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        Throwable t = e;
        for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
            if (depth > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                sb.append(": ").append(t.getMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString();
    }

    @Override
    String describeOpened(Duration startup) {
        String version = "?";
        try {
            for (String line : client.info("server").split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    version = line.substring("redis_version:".length()).trim();
                }
            }
        } catch (RuntimeException ignored) {
            // informational only
        }
        return uri + " via " + strategy.source() + " (redis " + version + ", " + server.description()
                + ", keyPrefix " + keyPrefix() + ")";
    }

    private void deleteOwnKeysQuietly() {
        try {
            List<String> own = scanOwnKeys(client);
            for (int i = 0; i < own.size(); i += 500) {
                client.del(own.subList(i, Math.min(own.size(), i + 500)).toArray(new String[0]));
            }
        } catch (RuntimeException e) {
            System.err.println(LOG_PREFIX + "could not delete keys under " + keyPrefix() + " on " + uri + ": " + describe(e));
        }
    }

    private boolean pingsWithClient() {
        try {
            return "PONG".equalsIgnoreCase(client.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void requireOwned(String operation) {
        requireOpen();
        if (!server.owned()) {
            throw new IllegalStateException(operation + " is only allowed on a server this extension started, but this"
                    + " test class uses the shared server " + uri + " from " + strategy.source() + ", which is never"
                    + " stopped or restarted. Unset REDIS_URL or run with -D" + STRATEGY_PROPERTY
                    + "=testcontainers|path|embedded to get an owned server.");
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort
        }
    }

    /** A strategy that does not apply on this machine; the next one is tried. */
    static final class StrategyUnavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StrategyUnavailable(String message) {
            super(message);
        }

        StrategyUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The user explicitly named a server (REDIS_URL) and it is unusable: fail instead of falling back. */
    static final class ExplicitServerFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExplicitServerFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
