package dev.ratelimit.internal.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.SentineledConnectionProvider;
import redis.clients.jedis.util.Delay;

/**
 * Jedis' Sentinel provider, whose {@link #close()} returns once the threads it started have ended.
 *
 * <p>Jedis runs a listener thread per Sentinel (named {@code <master>-SentinelListener-[<sentinel>]})
 * for {@code +switch-master}. Its own close only asks them to stop and closes their connections, and
 * returns: a listener that lost its Sentinel sleeps out its resubscribe back-off first, and one that
 * was connecting subscribes on its new connection, which nobody closes, and then waits on it for
 * good; so does one whose thread had not run yet (it marks itself running when it starts, after the
 * stop). Those two races are redis/jedis#1819, open since 2018 (#4739 proposes a fix). An undeployed
 * webapp would leave such a thread behind (Tomcat reports it as leaked), logging Jedis' "Lost
 * connection to Sentinel" after the library closed, or holding a connection to the Sentinel.
 *
 * <p>So close waits for each listener, asking it again to stop every {@value #NUDGE_MILLIS} ms (which
 * closes a connection it made since), for at most the back-off plus the Sentinels' connect and socket
 * timeouts: one asleep wakes and stops within the back-off, one connecting gives up or gets its first
 * reply within the timeouts. Only one still running then is interrupted, as a last resort, since
 * Jedis logs that at ERROR ("Sleep interrupted."); one that outlives that too is named in a WARN.
 */
final class SentinelProvider extends SentineledConnectionProvider {
    private static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RedisStore");
    /** Jedis' default back-off before a listener connects again, given here so that close knows it. */
    static final Duration RESUBSCRIBE_DELAY = Duration.ofMillis(DEFAULT_SUBSCRIBE_RETRY_WAIT_TIME_MILLIS);
    /** How often close asks a listener still running again to stop. */
    static final long NUDGE_MILLIS = 100;
    /** How long close waits for a listener it interrupted. */
    static final Duration AFTER_INTERRUPT = Duration.ofSeconds(1);

    /** The longest a listener may take to stop on its own. */
    private final Duration listenersEnd;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Finds the master through the first Sentinel that names it (else a JedisException); a listener per Sentinel. */
    SentinelProvider(String master, Set<HostAndPort> sentinels, JedisClientConfig client,
            JedisClientConfig sentinelClient, GenericObjectPoolConfig<Connection> pool) {
        super(master, client, pool, sentinels, sentinelClient, Delay.constant(RESUBSCRIBE_DELAY));
        this.listenersEnd = RESUBSCRIBE_DELAY.plusMillis(sentinelClient.getConnectionTimeoutMillis())
                .plusMillis(sentinelClient.getSocketTimeoutMillis());
    }

    /** Closes the master's pool and returns once every listener has ended (see the class comment); once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            super.close();
        } finally {
            awaitEnd(sentinelListeners, SentinelListener::shutdown, listenersEnd, AFTER_INTERRUPT);
        }
    }

    /**
     * Waits until each thread has ended, calling {@code nudge} on those alive every {@value #NUDGE_MILLIS} ms, for at
     * most {@code bound}; then interrupts those still alive, waits for them up to {@code afterInterrupt}, and logs
     * one WARN naming those alive even then, which it returns.
     */
    static <T extends Thread> List<T> awaitEnd(Collection<T> threads, Consumer<? super T> nudge, Duration bound,
            Duration afterInterrupt) {
        long start = System.nanoTime();
        boolean interrupted = false;
        List<T> alive = alive(threads);
        try {
            while (!alive.isEmpty()) {
                long left = bound.toNanos() - (System.nanoTime() - start);
                if (left <= 0) {
                    break;
                }
                alive.forEach(nudge);
                alive.get(0).join(Math.max(1, Math.min(NUDGE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left))));
                alive = alive(alive);
            }
        } catch (InterruptedException e) {
            // The caller is being stopped: no more waiting than the last resort's.
            interrupted = true;
        }
        if (!alive.isEmpty()) {
            alive.forEach(Thread::interrupt);
            long lastResortEnd = System.nanoTime() + afterInterrupt.toNanos();
            try {
                for (T thread : alive) {
                    long left = lastResortEnd - System.nanoTime();
                    if (left <= 0 || interrupted) {
                        break;
                    }
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
            alive = alive(alive);
        }
        if (!alive.isEmpty()) {
            LOG.warn("Redis Sentinel listener threads still run {} ms after the store began to close: {}. Jedis "
                    + "started them to follow the master; one stuck connecting to its Sentinel may run on, holding that "
                    + "connection, until the JVM stops, and a container reports it as a leaked thread. Check that each "
                    + "Sentinel in redisSentinelNodes resolves and answers from this server within redisTimeout",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                    alive.stream().map(Thread::getName).collect(Collectors.toList()));
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return alive;
    }

    private static <T extends Thread> List<T> alive(Collection<T> threads) {
        return threads.stream().filter(Thread::isAlive).collect(Collectors.toList());
    }
}
