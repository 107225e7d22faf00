package dev.ratelimit.bench.peers;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

/**
 * The sliding-window-log limiter of countless blog posts: a sorted set per key holding one member per request,
 * scored by its time, maintained with four separate commands through a pooled Jedis 7 {@link RedisClient}
 * (same pool as ours):
 * <pre>
 * now = System.currentTimeMillis()
 * ZREMRANGEBYSCORE key -inf (now-window      drop the requests older than the window
 * ZADD key now "now-instance-sequence"       record this request
 * ZCARD key                                   count the requests in the window
 * PEXPIRE key window                          let an idle key disappear
 * admitted = count &lt;= limit
 * </pre>
 * Four round trips, no {@code MULTI} and no script, as the posts write it. Its known flaws are kept on
 * purpose, since they are what this baseline stands for:
 * <ul>
 *   <li>a rejected request is recorded too, so a client that keeps retrying above its limit stays locked out
 *       for as long as it retries, not just until its admitted requests age out;</li>
 *   <li>the four commands are not atomic: concurrent requests for one key interleave, so a burst can admit
 *       more (or fewer) than {@code limit}, and a window's worth of state costs one set member per request;</li>
 *   <li>time is each client machine's clock, so clock skew between app servers moves the window.</li>
 * </ul>
 * Members are {@code now-instance-sequence}: unique, unlike a bare timestamp that would merge two requests
 * in the same millisecond, and cheaper than a UUID.
 */
public final class NaiveSortedSetLimiter implements BenchLimiter {
    /** Prefix of the keys when none is given, so the peers' keys never collide with each other's. */
    public static final String DEFAULT_KEY_PREFIX = "peer:naive:";

    private final RedisClient redis;
    private final long limit;
    private final long windowMillis;
    private final String keyPrefix;
    private final String memberTag;
    private final String clientName;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    private NaiveSortedSetLimiter(RedisClient redis, long limit, long windowMillis, String keyPrefix,
            String instance, String clientName) {
        this.redis = redis;
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.keyPrefix = keyPrefix;
        this.memberTag = "-" + instance + "-";
        this.clientName = clientName;
    }

    /**
     * A sorted-set limiter with keys under {@value #DEFAULT_KEY_PREFIX}.
     *
     * @param redisUri e.g. {@code redis://127.0.0.1:6379}
     * @param limit    requests per window
     * @param window   the sliding window (whole milliseconds)
     * @param poolSize the most connections to Redis
     * @return an open limiter; close it
     */
    public static NaiveSortedSetLimiter create(String redisUri, long limit, Duration window, int poolSize) {
        return create(redisUri, limit, window, poolSize, DEFAULT_KEY_PREFIX);
    }

    /**
     * As {@link #create(String, long, Duration, int)}, with the Redis keys under {@code keyPrefix}.
     *
     * @param keyPrefix prepended to every client key
     * @return an open limiter; close it
     */
    public static NaiveSortedSetLimiter create(String redisUri, long limit, Duration window, int poolSize,
            String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Peers.checkLimit(limit, window, poolSize);
        String instance = Peers.instanceId();
        String clientName = "bench-naive-" + instance;
        RedisClient redis = Peers.pooledJedis(redisUri, poolSize, clientName);
        return new NaiveSortedSetLimiter(redis, limit, window.toMillis(), keyPrefix, instance, clientName);
    }

    @Override
    public boolean tryAcquire(String key) {
        String redisKey = keyPrefix + key;
        long now = System.currentTimeMillis();
        redis.zremrangeByScore(redisKey, "-inf", "(" + (now - windowMillis));
        redis.zadd(redisKey, now, now + memberTag + sequence.incrementAndGet());
        long count = redis.zcard(redisKey);
        redis.pexpire(redisKey, windowMillis);
        return count <= limit;
    }

    @Override
    public String name() {
        return "naive sorted-set log (Jedis, 4 round trips)";
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
