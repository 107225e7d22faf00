package dev.ratelimit;

import dev.ratelimit.internal.redis.CircuitBreaker;
import dev.ratelimit.internal.redis.CircuitBreakingGateway;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.redis.JedisGateway;
import dev.ratelimit.internal.redis.NodeGateway;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.StoreAccess;
import dev.ratelimit.internal.redis.TestOnlyRedisLink;
import dev.ratelimit.internal.support.ClientLibraries;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * One connection (pool) to Redis, shared by any number of {@link RateLimiter}s and counters.
 * Thread-safe. Close it when the application stops: it closes what it opened and nothing else.
 */
public final class RedisStore implements AutoCloseable {
    static {
        StoreAccess.install(store -> ((RedisStore) store).gateway);
    }

    private final RedisGateway gateway;
    /** One per store, not per limiter: a Redis that may evict is logged once, whatever uses it. */
    private final EvictionWatch evictions;

    private RedisStore(RedisGateway gateway, LongSupplier nanoClock) {
        this.gateway = gateway;
        this.evictions = new EvictionWatch(gateway, nanoClock);
    }

    /**
     * A store over a gateway the caller made (an in-memory fake in the tests), with no circuit
     * breaker added: the gateway is used as it is.
     */
    static RedisStore over(RedisGateway gateway) {
        return new RedisStore(Objects.requireNonNull(gateway, "gateway"), System::nanoTime);
    }

    /** The gateway the limiters of this store decide through. */
    RedisGateway gateway() {
        return gateway;
    }

    /** Whether this store's Redis may evict the limiter's keys: read by its limiters' decisions, now and then. */
    EvictionWatch evictions() {
        return evictions;
    }

    /**
     * Opens a pooled connection to Redis: standalone, or through Sentinel or Cluster when the
     * settings say so. Connections are made lazily, by the first decisions or by a limiter built with
     * {@link RateLimiterBuilder#warmUp(boolean)}: this does not fail if Redis is down, the first
     * decision does. The first limiter built on the store reads whether Redis may evict the limiter's
     * keys ({@link RateLimiterStats#redisEviction()}), waiting at most the timeout per master and
     * failing nothing.
     *
     * <p>For {@code test-only-redis://<name>} it opens the test kit's Redis in this JVM of that name
     * ({@code dev.ratelimit:ratelimit-test-kit}, for tests only), whose clock the limiters then keep
     * too; outside the kit's JUnit extension or rule that logs one ERROR.
     *
     * @throws IllegalArgumentException if the settings are unusable, or name the test kit's Redis
     *     while the kit is not on the class path
     */
    public static RedisStore connect(RedisSettings settings) {
        return connect(settings, System::nanoTime);
    }

    /** {@link #connect(RedisSettings)} whose eviction readings fall due by {@code nanoClock}: a seam for tests. */
    static RedisStore connect(RedisSettings settings, LongSupplier nanoClock) {
        Objects.requireNonNull(settings, "settings");
        if (settings.testOnlyName() != null) {
            RedisGateway gateway = TestOnlyRedisLink.open(settings.testOnlyName(), settings.redactedUri());
            return new RedisStore(gateway, gateway::nanoTime);
        }
        ClientLibraries.check();
        return new RedisStore(gateway(settings), nanoClock);
    }

    private static RedisGateway gateway(RedisSettings settings) {
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
        // evictor is a thread the container would report as leaked. Instead, a node that fails gets its
        // idle connections dropped, and one quiet for a second gets a PING first (see NodeGateway).
        pool.setJmxEnabled(false);
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        // A probe still out after the longest a call can take is presumed lost, and the next caller
        // probes instead. Each step waits up to the timeout: a connect, a PING, EVALSHA, the EVAL
        // after NOSCRIPT, and the connect commons-pool makes for a broken connection's replacement,
        // plus the pool wait; eight timeouts leave room, so a slow probe is never taken for lost.
        Duration probeLease = settings.poolMaxWait().plus(settings.timeout().multipliedBy(8));
        // While a node's probe is out, the other callers wait for its verdict as a queued coalesced
        // call waits for a round trip under way: the probe usually answers sooner, and then they are
        // decided by Redis.
        Duration turnWait = roundTripWait(settings);
        // A warm-up starts no step after two timeouts; each of its steps waits a timeout per reply.
        Duration warmUpBudget = settings.timeout().multipliedBy(2);
        Supplier<CircuitBreaker> breakers = () -> new CircuitBreaker(settings.breakerFailures(), settings.breakerCoolDown(),
                probeLease, turnWait, System::nanoTime);
        // The gateway builds Jedis' connection providers itself, not a UnifiedJedis: only they show the
        // node a call goes to and its pool, which key the circuit breakers and get cleared of stale
        // connections, and let it follow Cluster's ASK (Jedis would also retry after a timeout).
        // The Sentinels themselves get the timeouts, but not the data nodes' credentials or database.
        DefaultJedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                .socketTimeoutMillis(Math.toIntExact(settings.timeout().toMillis()))
                .build();
        return NodeGateway.connect(settings, client.build(), sentinelConfig, pool, breakers, coalescing(settings), turnWait,
                warmUpBudget);
    }

    /**
     * Round trips of script calls under way per node before concurrent calls travel together; 0 for
     * none. Two, measured against one (bench/BENCHMARKS.md, bench/NOTES.md): two callers still go at once,
     * side by side, while at 16 callers and more the batches grow as large as Redis' CPU needs.
     */
    private static int coalescing(RedisSettings settings) {
        return settings.coalescing() ? 2 : 0;
    }

    /**
     * The longest a decision waits for another call's round trip: in its node's coalescing queue, or
     * for the verdict of the node's probe. The pool wait, but at least the timeout, which bounds such
     * a round trip: a pool wait of zero ("never wait for a connection") must not fail decisions that
     * only waited behind another call while the pool has connections to spare.
     */
    private static Duration roundTripWait(RedisSettings settings) {
        return settings.poolMaxWait().compareTo(settings.timeout()) > 0 ? settings.poolMaxWait() : settings.timeout();
    }

    /** {@link #connect(RedisSettings)} with default timeouts and pool. */
    public static RedisStore connect(String uri) {
        return connect(RedisSettings.of(uri));
    }

    /**
     * Uses a Jedis client the caller already has (standalone, Sentinel or Cluster). {@link #close()}
     * leaves it open: its owner closes it.
     *
     * <p>Such a client hides the node behind each call, so the store has less to work with than one
     * made by {@link #connect(RedisSettings)}: one circuit breaker for the whole client (a dead
     * Cluster master stops every decision while it is open); no PING after a quiet second, so after
     * a Redis restart each idle connection may fail one decision; after a failure to reach Redis
     * the idle connections of a {@code RedisClient}'s pool, or of every Cluster node, are dropped (a
     * {@code RedisSentinelClient} shows no pool); and redirects and retries are the client's own
     * ({@code maxAttempts}: with 1 an {@code ASK} is not followed, with more Jedis also retries
     * after a timeout, when the script may have run). Whether Redis may evict the limiter's keys is
     * read on a {@code RedisClient}'s node, on each master of a {@code RedisClusterClient}, and
     * through any other client's own routing.
     */
    public static RedisStore wrap(UnifiedJedis jedis) {
        Objects.requireNonNull(jedis, "jedis");
        Duration coolDown = RedisSettings.DEFAULT_BREAKER_COOL_DOWN;
        // The caller's client hides its timeouts: callers wait for a probe's verdict as long as for a
        // pooled connection by default.
        CircuitBreaker breaker = new CircuitBreaker(RedisSettings.DEFAULT_BREAKER_FAILURES, coolDown, coolDown,
                RedisSettings.DEFAULT_TIMEOUT, System::nanoTime);
        return new RedisStore(new CircuitBreakingGateway(new JedisGateway(jedis, "a caller's "
                + jedis.getClass().getSimpleName()), breaker), System::nanoTime);
    }

    /**
     * Closes the connections this store opened. On Sentinel it returns once Jedis' listener thread of
     * each Sentinel has ended: at once, but while a Sentinel is unreachable up to 5 s (Jedis' back-off
     * before it tries that Sentinel again) plus twice the timeout. Closing again is harmless.
     */
    @Override
    public void close() {
        gateway.close();
    }

    @Override
    public String toString() {
        return "RedisStore(" + gateway + ")";
    }
}
