package dev.ratelimit.bench.peers;

import io.github.bucket4j.BandwidthBuilder;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.serialization.Mapper;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import redis.clients.jedis.RedisClient;

/**
 * bucket4j 8.17 ({@code bucket4j_jdk17-jedis}) through its public distributed API: one token bucket per key,
 * capacity {@code limit}, refilled greedily by {@code limit} tokens per {@code window}, its state kept in Redis.
 *
 * <p>Set up as bucket4j's Jedis documentation shows: {@code Bucket4jJedis.casBasedBuilder(jedis)} with an
 * {@code ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(10 s)} (the margin of the docs'
 * example: a key lives until its bucket would be full again, plus 10 s) and {@code keyMapper(Mapper.STRING)}.
 * Everything else is bucket4j's default: the compare-and-swap protocol every bucket4j Redis integration uses
 * (a {@code GET} of the state, then a Lua compare-and-set, retried on conflict), executed on the calling
 * thread, {@code RecoveryStrategy.RECONSTRUCT}, no local optimization (no batching or delaying), so every
 * decision is exact and made in Redis.
 *
 * <p>Per call: {@code proxyManager.getProxy(key, configuration).tryConsume(1)} ({@code getProxy} is the same as
 * {@code builder().build(key, supplier)}). The {@code BucketProxy} is deliberately not cached: bucket4j's docs
 * call it a stateless, cheap handle and recommend {@code getProxy} on every request when there is one bucket
 * per user or IP (caching would only save a small allocation, never a round trip). The configuration
 * supplier is only called when the bucket does not exist yet.
 *
 * <p>Jedis: bucket4j 8.17 was compiled against Jedis 4.4 (a {@code provided} dependency), but the only Jedis
 * methods it calls, {@code UnifiedJedis.eval(byte[], int, byte[]...)}, {@code get(byte[])} and
 * {@code del(byte[])}, have the same signatures in Jedis 7, so it runs on the Jedis 7 {@link RedisClient}
 * (a pooled {@code UnifiedJedis}) with the same pool as ours. {@code JedisBasedProxyManager.builderFor(...)} is
 * deprecated in 8.17 in favour of {@code Bucket4jJedis.casBasedBuilder(...)}, which is used here.
 */
public final class Bucket4jLimiter implements BenchLimiter {
    /** Prefix of the keys when none is given, so the peers' keys never collide with each other's. */
    public static final String DEFAULT_KEY_PREFIX = "peer:bucket4j:";
    /** How long a full bucket's key outlives its refill (the value of bucket4j's Jedis example). */
    static final Duration KEEP_AFTER_REFILL = Duration.ofSeconds(10);

    private final RedisClient redis;
    private final ProxyManager<String> proxyManager;
    private final Supplier<BucketConfiguration> configuration;
    private final String keyPrefix;
    private final String clientName;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Bucket4jLimiter(RedisClient redis, ProxyManager<String> proxyManager,
            Supplier<BucketConfiguration> configuration, String keyPrefix, String clientName) {
        this.redis = redis;
        this.proxyManager = proxyManager;
        this.configuration = configuration;
        this.keyPrefix = keyPrefix;
        this.clientName = clientName;
    }

    /**
     * A bucket4j limiter with keys under {@value #DEFAULT_KEY_PREFIX}.
     *
     * @param redisUri e.g. {@code redis://127.0.0.1:6379}
     * @param limit    tokens per window (and the bucket's capacity)
     * @param window   the refill period
     * @param poolSize the most connections to Redis
     * @return an open limiter; close it
     */
    public static Bucket4jLimiter create(String redisUri, long limit, Duration window, int poolSize) {
        return create(redisUri, limit, window, poolSize, DEFAULT_KEY_PREFIX);
    }

    /**
     * As {@link #create(String, long, Duration, int)}, with the Redis keys under {@code keyPrefix}.
     *
     * @param keyPrefix prepended to every client key
     * @return an open limiter; close it
     */
    public static Bucket4jLimiter create(String redisUri, long limit, Duration window, int poolSize,
            String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Peers.checkLimit(limit, window, poolSize);
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(BandwidthBuilder.builder().capacity(limit).refillGreedy(limit, window).build())
                .build();
        String clientName = "bench-bucket4j-" + Peers.instanceId();
        RedisClient redis = Peers.pooledJedis(redisUri, poolSize, clientName);
        try {
            ProxyManager<String> proxyManager = Bucket4jJedis.casBasedBuilder(redis)
                    .expirationAfterWrite(
                            ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(KEEP_AFTER_REFILL))
                    .keyMapper(Mapper.STRING)
                    .build();
            return new Bucket4jLimiter(redis, proxyManager, () -> config, keyPrefix, clientName);
        } catch (RuntimeException | Error e) {
            redis.close();
            throw e;
        }
    }

    @Override
    public boolean tryAcquire(String key) {
        return proxyManager.getProxy(keyPrefix + key, configuration).tryConsume(1);
    }

    @Override
    public String name() {
        return "bucket4j token bucket (Jedis, compare-and-swap)";
    }

    /** The name this limiter's connections give themselves ({@code CLIENT SETNAME}). */
    String clientName() {
        return clientName;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            redis.close();
        }
    }
}
