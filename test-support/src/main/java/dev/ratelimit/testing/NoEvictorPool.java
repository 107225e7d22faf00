package dev.ratelimit.testing;

import java.time.Duration;

import redis.clients.jedis.ConnectionPoolConfig;

/**
 * The pool configuration of every client the test support creates (the standalone admin client and the
 * cluster and sentinel clients): no idle evictor thread and no JMX. Tests check that the library leaves no
 * {@code commons-pool-evictor} thread behind, so the test support must not start one either.
 */
final class NoEvictorPool {

    private NoEvictorPool() {
    }

    /** @return a new pool configuration whose evictor never runs */
    static ConnectionPoolConfig config() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        return pool;
    }
}
