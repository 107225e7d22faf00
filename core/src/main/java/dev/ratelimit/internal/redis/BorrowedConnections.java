package dev.ratelimit.internal.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.Connection;

/**
 * The connections this library's calls hold now, where Jedis builds the pools itself (Sentinel's
 * master, Cluster's nodes) and no {@link TrackedSockets} can see their sockets. commons-pool closes
 * only idle connections when a pool closes; one still held (a call stuck at undeploy) would stay open
 * until its call ended, or the GC found it. Closing the nodes disconnects these too: an undeployed
 * webapp leaves no connection to Redis. Bounded by the connections in use at once. Thread-safe.
 */
class BorrowedConnections {
    /** For a standalone node, whose {@link TrackedSockets} already close every socket: keeps nothing. */
    static final BorrowedConnections NONE = new BorrowedConnections() {
        @Override
        void add(Connection connection) {
        }

        @Override
        void remove(Connection connection) {
        }
    };

    private final Set<Connection> held = ConcurrentHashMap.newKeySet();

    void add(Connection connection) {
        held.add(connection);
    }

    /** The call is done with it (given back or destroyed next). */
    void remove(Connection connection) {
        held.remove(connection);
    }

    /** Once the pools have closed: the call that holds one then fails, as the store is closing. */
    void disconnectAll() {
        for (Connection connection : held) {
            connection.disconnect();
        }
        held.clear();
    }

    /** How many are held now: for tests. */
    int size() {
        return held.size();
    }
}
