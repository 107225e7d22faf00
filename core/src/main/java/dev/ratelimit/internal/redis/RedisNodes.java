package dev.ratelimit.internal.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.Pool;

/**
 * Which Redis node a key lives on and the pool of connections to it: what {@link NodeGateway}
 * needs from a topology. The gateway builds the providers itself, rather than asking a Jedis
 * client, because only a provider shows the node behind a call and its pool: the node keys its
 * circuit breaker, and the pool is cleared of connections that a restart made stale.
 */
interface RedisNodes extends AutoCloseable {
    /** The node serving {@code key} now. */
    HostAndPort nodeFor(String key);

    /** The pool of a node, set up when it is new (a redirect's target). */
    Pool<Connection> pool(HostAndPort node);

    /**
     * The connections calls hold now, disconnected when the nodes close; {@link BorrowedConnections#NONE}
     * where every socket is tracked anyway (a standalone node).
     */
    default BorrowedConnections borrowed() {
        return BorrowedConnections.NONE;
    }

    /** A node answered MOVED on {@code connection}: learn the slot map from it. */
    default void slotsMoved(Connection connection) {
    }

    /** A node stopped answering: learn the slot map again, in case a replica has taken over. */
    default void unreachable(HostAndPort node) {
    }

    /** Returns once a renewal of the slot map under way (after a failure) has ended. */
    default void awaitSlotMap() {
    }

    /** The nodes in use now, as {@code host:port}; the gateway forgets the health of the others. */
    Set<String> inUse();

    /** The masters that hold the limiter's keys now: the one node, the Sentinel master, or each Cluster master. */
    List<HostAndPort> masters();

    /** Whether one address serves every call, so that messages need not name it. */
    default boolean single() {
        return false;
    }

    /** Whether this is Redis Cluster, where Jedis runs no MULTI/EXEC. */
    default boolean cluster() {
        return false;
    }

    @Override
    void close();

    /** One Redis at a fixed address. */
    static RedisNodes standalone(HostAndPort node, JedisClientConfig client, GenericObjectPoolConfig<Connection> pool) {
        TrackedSockets sockets = new TrackedSockets(node, client);
        PooledConnectionProvider provider = new PooledConnectionProvider(new ConnectionFactory(sockets, client), pool);
        Set<String> inUse = Collections.singleton(node.toString());
        return new RedisNodes() {
            @Override
            public HostAndPort nodeFor(String key) {
                return node;
            }

            @Override
            public Pool<Connection> pool(HostAndPort ignored) {
                return provider.getPool();
            }

            @Override
            public Set<String> inUse() {
                return inUse;
            }

            @Override
            public List<HostAndPort> masters() {
                return Collections.singletonList(node);
            }

            @Override
            public boolean single() {
                return true;
            }

            @Override
            public void close() {
                provider.close();
                sockets.closeAll();
            }
        };
    }

    /**
     * The master Sentinel names. Jedis' provider follows {@code +switch-master} with a new pool; the
     * master's address keys the breaker, so a new master starts with a closed one. Closing returns once
     * the provider's listener threads have ended ({@link SentinelProvider}).
     *
     * @param sentinelClient the Sentinels' own connect and socket timeouts (and nothing of the data nodes')
     * @throws redis.clients.jedis.exceptions.JedisException if no Sentinel names the master
     */
    static RedisNodes sentinel(String master, Set<HostAndPort> sentinels, JedisClientConfig client,
            JedisClientConfig sentinelClient, GenericObjectPoolConfig<Connection> pool) {
        SentinelProvider provider = new SentinelProvider(master, sentinels, client, sentinelClient, pool);
        BorrowedConnections borrowed = new BorrowedConnections();
        return new RedisNodes() {
            @Override
            public HostAndPort nodeFor(String key) {
                return provider.getCurrentMaster();
            }

            @Override
            public Pool<Connection> pool(HostAndPort master) {
                // One entry: the current master's pool. During a switch it may already be the new
                // master's; the call then goes there, which is where it belongs.
                return provider.getConnectionMap().values().iterator().next();
            }

            @Override
            public Set<String> inUse() {
                return Collections.singleton(String.valueOf(provider.getCurrentMaster()));
            }

            @Override
            public List<HostAndPort> masters() {
                return Collections.singletonList(provider.getCurrentMaster());
            }

            @Override
            public BorrowedConnections borrowed() {
                return borrowed;
            }

            @Override
            public void close() {
                provider.close();
                borrowed.disconnectAll();
            }
        };
    }

    /** Redis Cluster: a key's node is the master of its hash slot in Jedis' slot map. */
    static RedisNodes cluster(Set<HostAndPort> seeds, JedisClientConfig client, GenericObjectPoolConfig<Connection> pool) {
        return new SlotMap(seeds, client, pool);
    }

    /** Jedis' cluster provider, reading its slot map and pools without copying them per call. */
    final class SlotMap extends ClusterConnectionProvider implements RedisNodes {
        SlotMap(Set<HostAndPort> seeds, JedisClientConfig client, GenericObjectPoolConfig<Connection> pool) {
            super(seeds, client, pool);
        }

        @Override
        public HostAndPort nodeFor(String key) {
            int slot = JedisClusterCRC16.getSlot(key);
            HostAndPort node = getNode(slot);
            if (node == null) {
                // A slot nobody serves in the map we have: the map is older than the cluster.
                renewSlotCache();
                node = getNode(slot);
            }
            return node;
        }

        @Override
        public Pool<Connection> pool(HostAndPort node) {
            ConnectionPool known = cache.getNode(node);
            return known != null ? known : cache.setupNodeIfNotExist(node);
        }

        @Override
        public void slotsMoved(Connection connection) {
            renewSlotCache(connection);
        }

        private final BorrowedConnections borrowed = new BorrowedConnections();

        @Override
        public BorrowedConnections borrowed() {
            return borrowed;
        }

        @Override
        public void close() {
            super.close();
            borrowed.disconnectAll();
        }

        /** Held while the slot map is learnt after a failure; Jedis' own lock would let others pass. */
        private final Object renewal = new Object();

        @Override
        public void unreachable(HostAndPort node) {
            // Asks the seeds, then the known nodes.
            synchronized (renewal) {
                renewSlotCache();
            }
        }

        @Override
        public void awaitSlotMap() {
            synchronized (renewal) {
                // nothing: only waits for a renewal to end
            }
        }

        @Override
        public Set<String> inUse() {
            return new HashSet<>(getNodes().keySet());
        }

        /**
         * The masters of the slot map, each once. Read slot by slot: Jedis' list of primaries is
         * only filled when the provider starts, so it misses a replica promoted since.
         */
        @Override
        public List<HostAndPort> masters() {
            Set<HostAndPort> masters = new LinkedHashSet<>();
            for (int slot = 0; slot < SLOTS; slot++) {
                HostAndPort master = getNode(slot);
                if (master != null) {
                    masters.add(master);
                }
            }
            return new ArrayList<>(masters);
        }

        /** Redis Cluster's hash slots. */
        private static final int SLOTS = 16384;

        @Override
        public boolean cluster() {
            return true;
        }
    }
}
