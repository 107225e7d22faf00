package dev.ratelimit.testing;

import static dev.ratelimit.testing.RedisServerExtension.DOCKER_IMAGE;
import static dev.ratelimit.testing.RedisServerExtension.REDIS_URL_ENV;
import static dev.ratelimit.testing.RedisServerExtension.REDIS_URL_PROPERTY;
import static dev.ratelimit.testing.RedisServerExtension.STRATEGY_PROPERTY;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import redis.clients.jedis.RedisClient;

/**
 * Chooses and starts the server of a {@link RedisServerExtension}: works out which {@link ServerStrategy strategies}
 * to try (forced, from {@value RedisServerExtension#STRATEGY_PROPERTY}, or the default order), tries them in
 * turn and returns the first server whose admin client answers {@code PING}. When none works, the exception
 * says how to provide Redis and why each strategy failed.
 */
final class StrategyResolver {

    private static final List<ServerStrategy> DEFAULT_ORDER =
            List.of(ServerStrategy.URL, ServerStrategy.TESTCONTAINERS, ServerStrategy.PATH, ServerStrategy.EMBEDDED);

    private final List<ServerStrategy> forcedOrder;
    private final Function<String, String> env;
    private final Function<String, String> props;

    /**
     * @param forcedOrder the strategies to try, in order; null: the property, else the default order
     * @param env         the environment lookup ({@code System::getenv})
     * @param props       the system property lookup ({@code System::getProperty})
     */
    StrategyResolver(List<ServerStrategy> forcedOrder, Function<String, String> env, Function<String, String> props) {
        this.forcedOrder = forcedOrder == null ? null : List.copyOf(forcedOrder);
        this.env = Objects.requireNonNull(env, "env");
        this.props = Objects.requireNonNull(props, "props");
    }

    /**
     * Obtains a server (the first of the strategies that works wins) and opens its admin client.
     *
     * @throws IllegalStateException when no strategy works, or a {@code REDIS_URL} server is unusable
     */
    OpenedServer open() {
        List<ServerStrategy> order = strategyOrder();
        Map<ServerStrategy, String> failures = new LinkedHashMap<>();
        for (ServerStrategy candidate : order) {
            ServerHandle handle;
            try {
                handle = tryStrategy(candidate, order != DEFAULT_ORDER);
            } catch (StrategyUnavailable e) {
                failures.put(candidate, e.getMessage());
                continue;
            } catch (ExplicitServerFailed e) {
                throw new IllegalStateException(e.getMessage(), e.getCause());
            } catch (RuntimeException | LinkageError e) {
                failures.put(candidate, Causes.describe(e));
                continue;
            }
            RedisClient admin = null;
            try {
                admin = OpenedServer.adminClient(handle.uri());
                String pong = admin.ping();
                if (!"PONG".equalsIgnoreCase(pong)) {
                    throw new IllegalStateException("PING answered " + pong);
                }
            } catch (RuntimeException e) {
                OpenedServer.closeQuietly(admin);
                handle.close();
                if (candidate == ServerStrategy.URL) {
                    throw new IllegalStateException(urlFailureMessage(handle.uri(), Causes.describe(e)), e);
                }
                failures.put(candidate, "admin client could not talk to " + handle.uri() + ": " + Causes.describe(e));
                continue;
            }
            return new OpenedServer(candidate, handle, admin);
        }
        throw new IllegalStateException(nothingWorkedMessage(order, failures));
    }

    // Resolution

    private List<ServerStrategy> strategyOrder() {
        if (forcedOrder != null) {
            return forcedOrder;
        }
        String forcedProperty = props.apply(STRATEGY_PROPERTY);
        if (forcedProperty == null || forcedProperty.isBlank()) {
            return DEFAULT_ORDER;
        }
        List<ServerStrategy> order = new ArrayList<>();
        for (String part : forcedProperty.split(",")) {
            if (!part.isBlank()) {
                ServerStrategy s = parse(part);
                if (!order.contains(s)) {
                    order.add(s);
                }
            }
        }
        return order.isEmpty() ? DEFAULT_ORDER : order;
    }

    private static ServerStrategy parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (ServerStrategy s : ServerStrategy.values()) {
            if (s.propertyValue().equals(v) || s.name().toLowerCase(Locale.ROOT).equals(v)) {
                return s;
            }
        }
        throw new IllegalStateException("Unknown value '" + value + "' in -D" + STRATEGY_PROPERTY
                + "; use one of url, testcontainers, path, embedded (or a comma separated list)");
    }

    private ServerHandle tryStrategy(ServerStrategy s, boolean explicitlyChosen) {
        switch (s) {
            case URL:
                return fromUrl();
            case TESTCONTAINERS:
                return fromTestcontainers(explicitlyChosen);
            case PATH:
                return fromPath();
            case EMBEDDED:
                return fromEmbedded();
            case LINE:
                return fromLine();
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
        Path binary = findOnPath(env.apply("PATH"), "redis-server");
        if (binary == null) {
            throw new StrategyUnavailable("no executable redis-server on PATH");
        }
        return RedisProcessServer.start(binary, null, ServerStrategy.PATH.source());
    }

    private ServerHandle fromLine() {
        RedisLine line;
        try {
            line = RedisLine.current(props);
        } catch (IllegalStateException badProperty) {
            throw new ExplicitServerFailed(badProperty.getMessage(), badProperty);
        }
        if (line.binary() == null) {
            throw new StrategyUnavailable("-D" + RedisLine.PROPERTY + " names no binary");
        }
        try {
            return RedisProcessServer.start(line.binary(), null, line.name());
        } catch (RuntimeException failed) {
            throw new ExplicitServerFailed(line + " did not start: " + Causes.describe(failed), failed);
        }
    }

    private ServerHandle fromEmbedded() {
        if (!classPresent("redis.embedded.core.ExecutableProvider")) {
            throw new StrategyUnavailable("com.github.codemonstur:embedded-redis is not on the test classpath");
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("ratelimit-embedded-redis-bin-");
            Path binary = EmbeddedRedisBinary.extractTo(dir);
            return RedisProcessServer.start(binary, dir, ServerStrategy.EMBEDDED.source());
        } catch (IOException e) {
            TempDirs.deleteRecursively(dir);
            throw new StrategyUnavailable("could not extract the redis-server binary from the embedded-redis jar: "
                    + Causes.describe(e));
        } catch (RuntimeException | LinkageError e) {
            TempDirs.deleteRecursively(dir);
            throw e;
        }
    }

    /** The first executable {@code command} (e.g. {@code redis-cli}; {@code .exe} on Windows) on {@code PATH}, or null. */
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

    // Messages

    static String howToProvideRedis() {
        return "Provide Redis for the tests in one of these ways:\n"
                + "  - set REDIS_URL=redis://host:port (or -D" + REDIS_URL_PROPERTY + "=redis://host:port) to use a server"
                + " you run; tests only write keys under a random prefix and never flush it\n"
                + "  - start Docker, so that Testcontainers can run " + DOCKER_IMAGE + "\n"
                + "  - install redis-server on PATH (e.g. apt-get install redis-server, brew install redis)\n"
                + "Use -D" + STRATEGY_PROPERTY + "=url|testcontainers|path|embedded to force one way.";
    }

    private static String nothingWorkedMessage(List<ServerStrategy> order, Map<ServerStrategy, String> failures) {
        StringBuilder sb = new StringBuilder("No Redis server available for the tests.\n");
        sb.append(howToProvideRedis()).append("\nStrategies tried, in order:\n");
        for (ServerStrategy s : order) {
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

    /** The user explicitly named a server (REDIS_URL) and it is unusable: fail instead of falling back. */
    static final class ExplicitServerFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExplicitServerFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
