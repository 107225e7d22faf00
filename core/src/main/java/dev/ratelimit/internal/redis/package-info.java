/**
 * The Redis transport, behind one seam ({@link dev.ratelimit.internal.redis.RedisGateway}: eval, a window
 * counter and a sliding log in MULTI/EXEC, delete, and batches): nodes and their pools (standalone, Sentinel, Cluster), connections
 * no restart made stale, a circuit breaker per node, coalescing of concurrent calls, pipelines and
 * redirects, the scripts as Redis runs them ({@link dev.ratelimit.internal.redis.LuaScript}), and whether a
 * store's masters may evict the limiter's keys ({@link dev.ratelimit.internal.redis.EvictionWatch}). The only
 * package that sees Jedis, with {@code RedisStore}. Not API.
 */
package dev.ratelimit.internal.redis;
