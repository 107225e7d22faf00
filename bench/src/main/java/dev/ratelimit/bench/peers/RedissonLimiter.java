package dev.ratelimit.bench.peers;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * Redisson 3.52 {@link RRateLimiter} through its public API, the way its users write it: per key,
 * {@code redisson.getRateLimiter(name)} and {@code trySetRate(RateType.OVERALL, limit, window, keepAlive)} once
 * (the {@code RRateLimiter} is cached in a {@link ConcurrentHashMap}, so the rate is not re-sent on every call),
 * then {@code tryAcquire()} per call: one Lua script, one round trip. {@code OVERALL} shares the limit across
 * every client of the key, as the other limiters do ({@code PER_CLIENT} would give each JVM its own).
 *
 * <p>Expiry: 3.52's {@code trySetRate(RateType, long, Duration, Duration)} takes a {@code keepAliveTime} (it must
 * be at least the rate interval), after which an unused limiter's keys (its config hash, {@code {name}:value}
 * and {@code {name}:permits}) are deleted; every acquire, admitted or not, pushes it back. It is set to
 * {@code window + 10 s}, the same lifetime as bucket4j's keys here (refill time plus its documented 10 s
 * margin). No deprecated call is used: {@code trySetRate(RateType, long, long, RateIntervalUnit)} and the
 * {@code TimeUnit} overloads of {@code tryAcquire} are deprecated in 3.52.
 *
 * <p>The flip side of caching with a keep-alive, which a real application must handle too: once a key has been
 * idle for longer than the keep-alive, its config is gone and Redisson's {@code tryAcquire} fails with
 * "RateLimiter is not initialized". Then the rate is set again and the acquire retried, once. With 10 s of
 * margin over the window this path is rare, so it does not burden the benchmark.
 *
 * <p>Connections: {@code useSingleServer()} with {@code connectionPoolSize = connectionMinimumIdleSize = poolSize}
 * (Redisson multiplexes asynchronous commands over this pool; opening it up front matches the warmed-up pools of
 * the others); everything else is Redisson's default (threads, timeouts, retries, codec). The map of
 * cached limiters grows with the number of distinct keys (10,000 in the benchmark), as it would in an app.
 */
public final class RedissonLimiter implements BenchLimiter {
    /** Prefix of the keys when none is given, so the peers' keys never collide with each other's. */
    public static final String DEFAULT_KEY_PREFIX = "peer:redisson:";
    /** How much longer than the window an idle limiter is kept (the margin used for bucket4j as well). */
    static final Duration KEEP_ALIVE_MARGIN = Duration.ofSeconds(10);

    private final RedissonClient redisson;
    private final long limit;
    private final Duration window;
    private final Duration keepAlive;
    private final String keyPrefix;
    private final String clientName;
    private final ConcurrentMap<String, RRateLimiter> limiters = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedissonLimiter(RedissonClient redisson, long limit, Duration window, String keyPrefix,
            String clientName) {
        this.redisson = redisson;
        this.limit = limit;
        this.window = window;
        this.keepAlive = window.plus(KEEP_ALIVE_MARGIN);
        this.keyPrefix = keyPrefix;
        this.clientName = clientName;
    }

    /**
     * A Redisson limiter with keys under {@value #DEFAULT_KEY_PREFIX}.
     *
     * @param redisUri e.g. {@code redis://127.0.0.1:6379} (user, password and {@code /db} are honoured)
     * @param limit    permits per window
     * @param window   the rate interval
     * @param poolSize Redisson's connection pool size
     * @return an open limiter; close it
     */
    public static RedissonLimiter create(String redisUri, long limit, Duration window, int poolSize) {
        return create(redisUri, limit, window, poolSize, DEFAULT_KEY_PREFIX);
    }

    /**
     * As {@link #create(String, long, Duration, int)}, with the Redis keys under {@code keyPrefix}.
     *
     * @param keyPrefix prepended to every client key (Redisson adds {@code {name}:value} and
     *                  {@code {name}:permits} next to the key itself)
     * @return an open limiter; close it
     */
    public static RedissonLimiter create(String redisUri, long limit, Duration window, int poolSize,
            String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Peers.checkLimit(limit, window, poolSize);
        String clientName = "bench-redisson-" + Peers.instanceId();
        Config config = new Config();
        SingleServerConfig server = config.useSingleServer()
                .setConnectionPoolSize(poolSize)
                .setConnectionMinimumIdleSize(poolSize);
        applyUri(server, redisUri);
        server.setClientName(clientName);
        return new RedissonLimiter(Redisson.create(config), limit, window, keyPrefix, clientName);
    }

    /** Address, credentials and database from a {@code redis://[user:password@]host:port[/db]} URI. */
    private static void applyUri(SingleServerConfig server, String redisUri) {
        URI uri = URI.create(redisUri);
        String scheme = uri.getScheme();
        if (scheme == null || uri.getHost() == null
                || !(scheme.equalsIgnoreCase("redis") || scheme.equalsIgnoreCase("rediss"))) {
            throw new IllegalArgumentException("Not a Redis URI: " + redisUri);
        }
        int port = uri.getPort() == -1 ? 6379 : uri.getPort();
        server.setAddress(scheme.toLowerCase(Locale.ROOT) + "://" + uri.getHost() + ":" + port);
        String userInfo = uri.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                server.setPassword(userInfo);
            } else {
                if (colon > 0) {
                    server.setUsername(userInfo.substring(0, colon));
                }
                server.setPassword(userInfo.substring(colon + 1));
            }
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            server.setDatabase(Integer.parseInt(path.substring(1)));
        }
    }

    @Override
    public boolean tryAcquire(String key) {
        RRateLimiter limiter = limiters.get(key);
        if (limiter == null) {
            limiter = redisson.getRateLimiter(keyPrefix + key);
            setRate(limiter);
            RRateLimiter raced = limiters.putIfAbsent(key, limiter);
            if (raced != null) {
                limiter = raced;
            }
        }
        try {
            return limiter.tryAcquire();
        } catch (RedisException e) {
            if (!notInitialized(e)) {
                throw e;
            }
            // Idle longer than keepAlive: Redisson deleted the limiter along with its config. Set it up again.
            setRate(limiter);
            return limiter.tryAcquire();
        }
    }

    private void setRate(RRateLimiter limiter) {
        limiter.trySetRate(RateType.OVERALL, limit, window, keepAlive);
    }

    private static boolean notInitialized(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("RateLimiter is not initialized")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String name() {
        return "Redisson RRateLimiter (OVERALL)";
    }

    /** The name this limiter's connections give themselves ({@code CLIENT SETNAME}). */
    String clientName() {
        return clientName;
    }

    /** How long Redisson keeps an idle limiter's keys. */
    Duration keepAlive() {
        return keepAlive;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            limiters.clear();
            redisson.shutdown();
        }
    }
}
