package dev.ratelimit.internal.redis;

import java.net.SocketTimeoutException;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.util.Pool;

/**
 * One call on one pooled connection of a node, for {@link NodeGateway}: where connections that a
 * restart made stale are told apart and dropped, without sending a command on them.
 *
 * <p>After a Redis restart every idle connection in the pool is dead, and each would fail one
 * decision. So a failure to reach the node clears the pool's idle connections, and so does the
 * first answer after the node's breaker was open (a connection returned meanwhile, its call answered
 * just before the node went away, is stale too). And the node's probe (the one call let through
 * after its breaker was open, or the first call after it has not answered for {@link NodeHealth#QUIET_NANOS};
 * the callers meanwhile wait for its verdict, see {@link CircuitBreaker}) sends a PING on the
 * borrowed connection first: a PING that fails at once, not by a timeout, shows a connection from
 * before a restart; it is dropped with the pool's idle ones and a fresh connection is used. Only a
 * PING ran on it, so nothing counts twice. Under traffic no PING is sent.
 */
final class NodeConnections {
    /** Stale connections dropped in one call at most; then the command goes out as is. */
    private static final int STALE_CHECKS = 3;

    private NodeConnections() {
    }

    /** A command run on one connection; {@code asking}: send ASKING right before each data command. */
    interface Command<T> {
        T run(Connection connection, boolean asking);
    }

    /**
     * Borrows a connection from a node's pool (a fresh one instead of any a restart made stale) and
     * runs the command on it, the connection known to {@link RedisNodes#borrowed} while the call holds
     * it. A MOVED reply teaches the nodes the slot map, on the connection still held.
     *
     * @param check whether this call is its node's probe ({@link CircuitBreaker.Pass#PROBE}: the
     *     breaker is half-open or the node was quiet), which PINGs its connection first
     *
     * @throws JedisDataException the node's error reply (MOVED and ASK included), as it came
     * @throws JedisException the node could not be reached; {@link NotSent} when no command went out
     */
    static <T> T run(RedisNodes nodes, HostAndPort node, NodeHealth health, boolean check, boolean asking,
            Command<T> command) {
        Pool<Connection> pool = nodes.pool(node);
        BorrowedConnections borrowed = nodes.borrowed();
        boolean recovering = health.breaker.state() != CircuitBreaker.State.CLOSED;
        Connection connection = null;
        boolean sent = false;
        try {
            connection = pool.getResource();
            borrowed.add(connection);
            for (int i = 0; check && i < STALE_CHECKS && isStale(connection); i++) {
                Connection stale = connection;
                connection = null;
                pool.clear();
                stale.setBroken();
                borrowed.remove(stale);
                release(stale);
                connection = pool.getResource();
                borrowed.add(connection);
            }
            sent = true;
            T result = command.run(connection, asking);
            if (recovering) {
                // The node is back. A connection returned to the pool while it was away (its call had
                // its answer just before) is stale too; this one, just used, is not idle yet.
                pool.clear();
            }
            return result;
        } catch (JedisMovedDataException moved) {
            nodes.slotsMoved(connection);
            throw moved;
        } catch (JedisDataException answered) {
            throw answered;
        } catch (JedisException lost) {
            // Whatever else idles in this pool is as dead, or from before a restart.
            pool.clear();
            throw sent ? lost : new NotSent(lost);
        } finally {
            if (connection != null) {
                borrowed.remove(connection);
            }
            release(connection);
        }
    }

    /**
     * An exchange of several commands on one connection: if it breaks off, replies may still be on
     * the wire, or a WATCH left on it, so the connection is never reused.
     */
    static <T> T whole(Connection connection, Supplier<T> exchange) {
        try {
            return exchange.get();
        } catch (RuntimeException e) {
            connection.setBroken();
            throw e;
        }
    }

    /**
     * Gives a connection back, or destroys it when broken. commons-pool 2.13 then opens a replacement
     * at once, which fails while the node is down: that says nothing new, and must not hide the
     * failure that broke the connection.
     */
    static void release(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (JedisException replacementFailed) {
            // the node is still away; the next borrow tries again
        }
    }

    /**
     * Whether a PING fails at once on this connection: its server is gone, and it was opened before a
     * restart. A PING that times out is no proof of that (the server may be stalled): it is thrown.
     */
    static boolean isStale(Connection connection) {
        try {
            connection.ping();
            return false;
        } catch (JedisConnectionException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof SocketTimeoutException) {
                    throw e;
                }
            }
            return true;
        }
    }

    /** No command went out (no connection, or only a PING failed): safe to send elsewhere. */
    static final class NotSent extends JedisException {
        private static final long serialVersionUID = 1L;

        NotSent(JedisException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
