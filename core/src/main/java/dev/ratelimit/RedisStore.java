package dev.ratelimit;

import dev.ratelimit.internal.CircuitBreaker;
import dev.ratelimit.internal.CircuitBreakingGateway;
import dev.ratelimit.internal.JedisGateway;
import dev.ratelimit.internal.RedisGateway;
import dev.ratelimit.internal.StoreAccess;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * One connection (pool) to Redis, shared by any number of {@link RateLimiter}s and counters.
 * Thread-safe. Close it when the application stops: it closes what it opened and nothing else.
 */
public final class RedisStore implements AutoCloseable {
    static {
        StoreAccess.install(new StoreAccess.Bridge() {
            @Override
            public RedisGateway gateway(RedisStore store) {
                return store.gateway;
            }

            @Override
            public RedisStore store(RedisGateway gateway) {
                return new RedisStore(Objects.requireNonNull(gateway, "gateway"));
            }
        });
    }

    private final RedisGateway gateway;

    private RedisStore(RedisGateway gateway) {
        this.gateway = gateway;
    }

    /**
     * Opens a pooled connection to Redis: standalone, or through Sentinel or Cluster when the
     * settings say so. Connections are made lazily: this does not
     * fail if Redis is down, the first decision does.
     *
     * @throws IllegalArgumentException if the settings are unusable
     */
    public static RedisStore connect(RedisSettings settings) {
        Objects.requireNonNull(settings, "settings");
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                .socketTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                .database(settings.database())
                .ssl(settings.tls())
                .clientName("ratelimit");
        if (settings.user() != null) {
            client.user(settings.user());
        }
        if (settings.password() != null) {
            client.password(settings.password());
        }
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(settings.poolSize());
        pool.setMaxIdle(settings.poolSize());
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(settings.poolMaxWait());
        // A JMX MBean per pool would pin the webapp's class loader after undeploy, and an idle-connection
        // evictor is a thread the container would report as leaked; a broken connection is dropped when
        // it fails instead.
        pool.setJmxEnabled(false);
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        UnifiedJedis jedis;
        if (settings.sentinelMaster() != null) {
            // The Sentinels themselves get the timeouts, but not the data nodes' credentials or database.
            DefaultJedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                    .socketTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                    .build();
            jedis = RedisSentinelClient.builder()
                    .masterName(settings.sentinelMaster())
                    .sentinels(hostsAndPorts(settings.sentinelNodes()))
                    .sentinelClientConfig(sentinelConfig)
                    .clientConfig(client.build())
                    .poolConfig(pool)
                    .build();
        } else if (!settings.clusterNodes().isEmpty()) {
            jedis = RedisClusterClient.builder()
                    .nodes(hostsAndPorts(settings.clusterNodes()))
                    .clientConfig(client.build())
                    .poolConfig(pool)
                    // One attempt: Jedis would retry after a timeout, when the script may already have
                    // run. A MOVED answer refreshes the slot map, so the next call goes right.
                    .maxAttempts(1)
                    .build();
        } else {
            jedis = RedisClient.builder()
                    .hostAndPort(settings.host(), settings.port())
                    .clientConfig(client.build())
                    .poolConfig(pool)
                    .build();
        }
        return new RedisStore(breaking(new JedisGateway(jedis, true, settings.location()), settings.breakerFailures(),
                settings.breakerCoolDown()));
    }

    private static Set<HostAndPort> hostsAndPorts(List<String> nodes) {
        Set<HostAndPort> set = new LinkedHashSet<>();
        for (String node : nodes) {
            set.add(HostAndPort.from(node.trim()));
        }
        return set;
    }

    /** {@link #connect(RedisSettings)} with default timeouts and pool. */
    public static RedisStore connect(String uri) {
        return connect(RedisSettings.of(uri));
    }

    /**
     * Uses a Jedis client the caller already has (standalone, Sentinel or Cluster). {@link #close()}
     * leaves it open: its owner closes it.
     */
    public static RedisStore wrap(UnifiedJedis jedis) {
        Objects.requireNonNull(jedis, "jedis");
        return new RedisStore(breaking(new JedisGateway(jedis, false, "a caller's " + jedis.getClass().getSimpleName()),
                RedisSettings.DEFAULT_BREAKER_FAILURES, RedisSettings.DEFAULT_BREAKER_COOL_DOWN));
    }

    private static RedisGateway breaking(RedisGateway gateway, int failures, Duration coolDown) {
        return new CircuitBreakingGateway(gateway, new CircuitBreaker(failures, coolDown, System::nanoTime));
    }

    /** Closes the connections this store opened. */
    @Override
    public void close() {
        gateway.close();
    }

    @Override
    public String toString() {
        return "RedisStore(" + gateway + ")";
    }
}
