package dev.ratelimit.internal.redis;

import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;

/**
 * Opens a node's sockets as Jedis does, and remembers the ones still open, so that closing the
 * node's pool closes every connection it ever opened. Closing the pool alone closes the idle ones
 * and those given back later; yet one connection in about twenty undeploys of a server smoke run
 * outlived it, closed only when the server's GC found its socket unreachable. A webapp that is
 * undeployed must leave no connection to Redis, whatever path lost track of one. Thread-safe;
 * bounded by the sockets open now, since closed ones are dropped at each new one.
 */
final class TrackedSockets implements JedisSocketFactory {
    private final JedisSocketFactory sockets;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    TrackedSockets(HostAndPort node, JedisClientConfig client) {
        this.sockets = new DefaultJedisSocketFactory(node, client);
    }

    @Override
    public Socket createSocket() {
        open.removeIf(Socket::isClosed);
        Socket socket = sockets.createSocket();
        open.add(socket);
        return socket;
    }

    /** Closes what is still open: for after the pool closed, when nothing may use a connection any more. */
    void closeAll() {
        for (Socket socket : open) {
            try {
                socket.close();
            } catch (IOException alreadyGone) {
                // closing is all that was asked
            }
        }
        open.clear();
    }

    /** How many sockets are open now: for tests. */
    int openCount() {
        open.removeIf(Socket::isClosed);
        return open.size();
    }
}
