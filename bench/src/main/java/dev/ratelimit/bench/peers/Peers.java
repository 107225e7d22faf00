package dev.ratelimit.bench.peers;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.util.JedisURIHelper;

/** What the peer adapters share: argument checks and the Jedis client of the Jedis-based ones. */
public final class Peers {
    private Peers() {
    }

    static void checkLimit(long limit, Duration window, int poolSize) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.toMillis() < 1) {
            throw new IllegalArgumentException("window must be at least 1 ms, was " + window);
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
        }
    }

    /**
     * The Jedis 7 {@link RedisClient} the Jedis-based peers, the floor and the bare scripts run on, with the
     * same pool settings as our own {@code RedisStore}: {@code poolSize} connections at most, kept when idle,
     * no idle evictor, no JMX. So every row differs from ours only in what it sends, not in how it holds
     * connections.
     *
     * @param redisUri   e.g. {@code redis://127.0.0.1:6379} (user, password and {@code /db} are honoured)
     * @param poolSize   the most connections the pool opens
     * @param clientName sent with {@code CLIENT SETNAME}, so the connections can be told apart in {@code CLIENT LIST}
     */
    public static RedisClient pooledJedis(String redisUri, int poolSize, String clientName) {
        URI uri = URI.create(redisUri);
        if (!JedisURIHelper.isValid(uri)) {
            throw new IllegalArgumentException("Not a Redis URI: " + redisUri);
        }
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri))
                .clientName(clientName);
        if (JedisURIHelper.isRedisSSLScheme(uri)) {
            client.sslOptions(SslOptions.defaults());
        }
        if (JedisURIHelper.hasDbIndex(uri)) {
            client.database(JedisURIHelper.getDBIndex(uri));
        }
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setJmxEnabled(false);
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        return RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(client.build())
                .poolConfig(pool)
                .build();
    }

    /** A random tag that tells this JVM's limiter instances apart (client names, set members). */
    static String instanceId() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    }
}
