package dev.ratelimit.testing;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;

/**
 * JUnit 5 extension that gives each test class its own real Redis server.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 * }</pre>
 *
 * <p>In {@code beforeAll} the first of these that works wins (see {@link ServerStrategy}):
 * <ol>
 *   <li>{@link ServerStrategy#URL}: the server named by the environment variable {@code REDIS_URL}
 *       (or the system property {@code redis.url}). It is shared, so it is never flushed, configured
 *       or shut down: tests must only write keys under {@link #keyPrefix()}. If {@code REDIS_URL} is
 *       set but the server does not answer, {@code beforeAll} fails instead of silently using another
 *       server.</li>
 *   <li>{@link ServerStrategy#TESTCONTAINERS}: a {@code redis:7.0-alpine} container, when Docker answers.</li>
 *   <li>{@link ServerStrategy#PATH}: a {@code redis-server} binary found on {@code PATH}, started on a free
 *       port of 127.0.0.1.</li>
 *   <li>{@link ServerStrategy#EMBEDDED}: the binary shipped in the embedded-redis jar, on a free port.</li>
 * </ol>
 * The system property {@code ratelimit.test.redis} ({@code url}, {@code testcontainers}, {@code path}
 * or {@code embedded}, or a comma separated list of them) forces the strategies to try. When nothing
 * works {@code beforeAll} throws an {@link IllegalStateException} that says how to provide Redis and
 * why each strategy failed; tests are never skipped.
 *
 * <p>The extension can also be used without JUnit: {@link #open()} / {@link #close()}, e.g.
 * {@code try (var r = RedisServerExtension.forced(ServerStrategy.EMBEDDED).open()) { ... }}. {@code afterAll} /
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
    /** Docker image used by {@link ServerStrategy#TESTCONTAINERS}. */
    public static final String DOCKER_IMAGE = "redis:7.0-alpine";

    private final StrategyResolver resolver;

    /** The server while open, else null. */
    private OpenedServer opened;

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
    RedisServerExtension(List<ServerStrategy> forcedOrder, Function<String, String> env, Function<String, String> props) {
        this.resolver = new StrategyResolver(forcedOrder, env, props);
    }

    /**
     * Creates an extension that only tries the given strategies, in the given order, ignoring
     * {@value #STRATEGY_PROPERTY}. Useful to exercise one fallback, e.g.
     * {@code RedisServerExtension.forced(ServerStrategy.EMBEDDED).open()}.
     *
     * @param strategies the strategies to try, first that works wins; at least one
     * @return a new, not yet opened extension
     */
    public static RedisServerExtension forced(ServerStrategy... strategies) {
        if (strategies.length == 0) {
            throw new IllegalArgumentException("forced() needs at least one strategy");
        }
        return new RedisServerExtension(Arrays.asList(strategies), System::getenv, System::getProperty);
    }

    /**
     * An extension for the server of {@link RedisLine#current()}: the binary {@value RedisLine#PROPERTY}
     * names (a failure, never another server, when it does not start), else embedded-redis' 6.2.
     */
    public static RedisServerExtension line() {
        RedisLine line = RedisLine.current();
        return forced(line.binary() == null ? ServerStrategy.EMBEDDED : ServerStrategy.LINE);
    }

    // Lifecycle (beforeAll / afterAll / close: see ManagedRedisResource)

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
     * As {@link #open()}, without the line the test support prints on {@code System.err} for its tests
     * ({@code [redis-test] owner -> ...}, with a key prefix a caller outside the tests does not use): for a
     * caller that tells its own console what it started.
     *
     * @return this extension, for try-with-resources
     * @throws IllegalStateException as {@link #open()}
     */
    public RedisServerExtension openUnannounced() {
        acquire(false);
        return this;
    }

    /** Obtains the server (see the class comment for the order) and opens the admin client. */
    @Override
    void doOpen() {
        opened = resolver.open();
    }

    @Override
    String describeOpened(Duration startup) {
        return opened.describe(keyPrefix());
    }

    /**
     * Stops a server this extension started, deletes its temporary directory and closes the admin client.
     * On a shared {@code REDIS_URL} server only the keys under {@link #keyPrefix()} are deleted.
     */
    @Override
    void doClose() {
        OpenedServer closing = opened;
        opened = null;
        if (closing != null) {
            closing.close(keyPrefix());
        }
    }

    // Accessors

    /**
     * The server's address as a Redis URI.
     *
     * @return e.g. {@code redis://127.0.0.1:34567}; for {@code REDIS_URL} the URL as given
     */
    public synchronized String uri() {
        requireOpen();
        return opened.uri();
    }

    /** The host to connect to, e.g. {@code 127.0.0.1}. */
    public synchronized String host() {
        requireOpen();
        return opened.server().host();
    }

    /** The port to connect to; it stays the same across {@link #stop()} / {@link #start()}. */
    public synchronized int port() {
        requireOpen();
        return opened.server().port();
    }

    /**
     * Which way the server was obtained.
     *
     * @return one of {@code "REDIS_URL"}, {@code "testcontainers"}, {@code "redis-server on PATH"},
     *         {@code "embedded-redis"} (see {@link ServerStrategy#source()})
     */
    public synchronized String source() {
        requireOpen();
        return opened.strategy().source();
    }

    /** The strategy that provided the server. */
    public synchronized ServerStrategy strategy() {
        requireOpen();
        return opened.strategy();
    }

    /**
     * The server's version, from {@code INFO server} (asked on each call). A test that must run on one
     * version asserts it, so that a fallback to another binary cannot pass unnoticed.
     *
     * @return e.g. {@code "6.2.11"}
     * @throws IllegalStateException when the server's INFO has no {@code redis_version}
     */
    public synchronized String serverVersion() {
        requireOpen();
        return opened.version();
    }

    /**
     * What the server calls itself and its own version, e.g. {@code "redis 7.0.15"}, {@code "valkey 9.1.2"}:
     * Valkey says {@code redis_version:7.2.4}, and its name and version in {@code server_name}, {@code valkey_version}.
     */
    public synchronized String serverProduct() {
        requireOpen();
        return opened.product();
    }

    /**
     * Whether this extension started the server (and so may stop, restart and discard it).
     *
     * @return {@code false} only for a shared {@code REDIS_URL} server
     */
    public synchronized boolean owned() {
        requireOpen();
        return opened.server().owned();
    }

    /**
     * The admin client for the server, opened in {@code beforeAll} and closed in {@code afterAll}. Its
     * idle connections are dropped by {@link #start()}, so it keeps working across a restart.
     *
     * @return a pooled client (do not close it)
     */
    public synchronized UnifiedJedis client() {
        requireOpen();
        return opened.client();
    }

    /** How many connections the server has from clients with this name ({@code CLIENT SETNAME}). */
    public long connectionsNamed(String clientName) {
        return RedisAdmin.connectionsNamed(client(), clientName);
    }

    /**
     * How often the server has run these commands ({@code INFO commandstats}), e.g.
     * {@code calls("eval", "evalsha")}. The commands a script runs count under their own names; a
     * call the command refused (an EVALSHA answered NOSCRIPT) counts too: see {@link #failedCalls}.
     */
    public long calls(String... commands) {
        return RedisAdmin.commandStat(client().info("commandstats"), "calls", commands);
    }

    /** How many calls of these commands failed ({@code failed_calls} in {@code INFO commandstats}). */
    public long failedCalls(String... commands) {
        return RedisAdmin.commandStat(client().info("commandstats"), "failed_calls", commands);
    }

    /**
     * All keys under {@link #keyPrefix()}, found with {@code SCAN} (never {@code KEYS}).
     *
     * @return the keys, sorted, without duplicates
     */
    public List<String> keys() {
        return OpenedServer.scanKeys(client(), keyPrefix());
    }

    // Failure injection

    /**
     * Kills the server (abruptly, like a crash): afterwards its port refuses connections. Does nothing if
     * it is already stopped. Data is lost; the server runs without persistence.
     *
     * @throws IllegalStateException when the server is not {@link #owned()} (a shared {@code REDIS_URL}
     *                               server is never stopped)
     */
    public synchronized void stop() {
        requireOpen();
        opened.kill("stop()");
    }

    /**
     * Starts the server again on the same host and port after {@link #stop()} and waits until it
     * answers {@code PING}. Does nothing if it is running.
     *
     * @throws IllegalStateException when the server is not {@link #owned()}, or when it does not come
     *                               back (e.g. the port was taken meanwhile)
     */
    public synchronized void start() {
        requireOpen();
        opened.restart("start()");
    }

    /** Whether the server currently accepts connections and answers {@code PING} (within ~0.5 s). */
    public synchronized boolean isAnswering() {
        requireOpen();
        return opened.isAnswering();
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "RedisServerExtension[" + (isOpen() ? opened.uri() + " via " + opened.strategy().source() : "not open")
                    + ", keyPrefix=" + keyPrefix() + "]";
        }
    }
}
