package dev.ratelimit.testing;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;



/**
 * The server an open {@link RedisServerExtension} uses, and what can be done to it: the winning strategy, the
 * server's handle and the admin client, the keys under a prefix, killing and restarting it. Not thread-safe on
 * its own: the extension calls it while holding its monitor.
 */
final class OpenedServer {

    private final ServerStrategy strategy;
    private final ServerHandle server;
    private final RedisClient client;

    OpenedServer(ServerStrategy strategy, ServerHandle server, RedisClient client) {
        this.strategy = strategy;
        this.server = server;
        this.client = client;
    }

    /** An admin client whose pool runs no idle evictor (see {@link NoEvictorPool}). */
    static RedisClient adminClient(String uri) {
        URI parsed = URI.create(uri);
        return RedisClient.builder().fromURI(parsed).poolConfig(NoEvictorPool.config()).build();
    }

    ServerStrategy strategy() {
        return strategy;
    }

    ServerHandle server() {
        return server;
    }

    RedisClient client() {
        return client;
    }

    String uri() {
        return server.uri();
    }

    /**
     * The {@code redis_version} of {@code INFO server}, asked now.
     *
     * @throws IllegalStateException when the server's INFO has no such field
     */
    String version() {
        String version = ServerProduct.field(client.info("server"), "redis_version");
        if (version == null) {
            throw new IllegalStateException("INFO server of " + uri() + " has no redis_version");
        }
        return version;
    }

    /** What the server calls itself and its own version (see {@link ServerProduct#of}). */
    String product() {
        return ServerProduct.of(client.info("server"));
    }

    /** The log line of a successful open, with the server's version. */
    String describe(String keyPrefix) {
        String version = "?";
        try {
            version = product();
        } catch (RuntimeException ignored) {
            // informational only
        }
        return uri() + " via " + strategy.source() + " (" + version + ", " + server.description()
                + ", keyPrefix " + keyPrefix + ")";
    }

    /**
     * Stops a server the extension started, deletes its temporary directory and closes the admin client.
     * On a shared {@code REDIS_URL} server only the keys under {@code keyPrefix} are deleted.
     */
    void close(String keyPrefix) {
        try {
            if (!server.owned()) {
                deleteKeysQuietly(keyPrefix);
            }
        } finally {
            closeQuietly(client);
            server.close();
        }
    }

    /** Kills the server and drops the admin client's idle connections. */
    void kill(String operation) {
        requireOwned(operation);
        server.kill();
        client.getPool().clear();
    }

    /** Starts the server again on the same port and drops the admin client's idle connections. */
    void restart(String operation) {
        requireOwned(operation);
        server.restart();
        client.getPool().clear();
    }

    /** Whether the server answers {@code PING} (within ~0.5 s). */
    boolean isAnswering() {
        return server.owned() ? RedisPing.answers(server.host(), server.port(), 500) : pingsWithClient();
    }

    /** All keys under {@code keyPrefix}, found with {@code SCAN}, sorted, without duplicates. */
    static List<String> scanKeys(UnifiedJedis c, String keyPrefix) {
        Set<String> found = new LinkedHashSet<>();
        ScanParams params = new ScanParams().match(keyPrefix + "*").count(1000);
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

    private void deleteKeysQuietly(String keyPrefix) {
        try {
            List<String> own = scanKeys(client, keyPrefix);
            for (int i = 0; i < own.size(); i += 500) {
                client.del(own.subList(i, Math.min(own.size(), i + 500)).toArray(new String[0]));
            }
        } catch (RuntimeException e) {
            System.err.println(ManagedRedisResource.LOG_PREFIX + "could not delete keys under " + keyPrefix + " on "
                    + uri() + ": " + Causes.describe(e));
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
        if (!server.owned()) {
            throw new IllegalStateException(operation + " is only allowed on a server this extension started, but this"
                    + " test class uses the shared server " + uri() + " from " + strategy.source() + ", which is never"
                    + " stopped or restarted. Unset REDIS_URL or run with -D" + RedisServerExtension.STRATEGY_PROPERTY
                    + "=testcontainers|path|embedded to get an owned server.");
        }
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
