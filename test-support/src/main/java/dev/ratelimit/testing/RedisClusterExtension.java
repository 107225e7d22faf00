package dev.ratelimit.testing;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * JUnit 5 extension that starts a real Redis Cluster for a test class: six {@code redis-server} processes
 * from {@code PATH} on free ports of 127.0.0.1 (3 masters with one replica each), joined with
 * {@code redis-cli --cluster create}.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension();
 * ...
 * settings.redisClusterNodes(cluster.seedNodes());
 * cluster.failover("{user:42}");   // the replica of the slot's master takes over
 * }</pre>
 *
 * <p>{@code beforeAll} returns when every node says {@code cluster_state:ok}, all nodes agree on which
 * master owns which slots and every replica's link to its master is up. Without {@code redis-server} and
 * {@code redis-cli} on {@code PATH} it throws (there is no fallback, and nothing is skipped).
 *
 * <p>Usable without JUnit too: {@link #open()} / {@link #close()} (try-with-resources). Processes are killed
 * in {@link #close()} and, should that never run, by a JVM shutdown hook; their temp dirs are deleted.
 */
public final class RedisClusterExtension extends ManagedRedisResource {

    /** Number of {@code redis-server} processes: 3 masters, 3 replicas. */
    public static final int NODE_COUNT = 6;
    /** How long the cluster may take to become healthy, after a start or a failover. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration MANUAL_FAILOVER_RETRY = Duration.ofSeconds(6);

    private final Function<String, String> env;

    private List<RedisProcessServer> servers = List.of();
    /** What the nodes say about the cluster, while open. */
    private ClusterTopology topology;

    /** Creates an extension that starts its cluster in {@code beforeAll} (or {@link #open()}). */
    public RedisClusterExtension() {
        this(System::getenv);
    }

    /** Package-private seam for tests: a replaceable environment (for {@code PATH}). */
    RedisClusterExtension(Function<String, String> env) {
        this.env = Objects.requireNonNull(env, "env");
    }

    // ------------------------------------------------------------------------------------------
    // Lifecycle (beforeAll / afterAll / close: see ManagedRedisResource)
    // ------------------------------------------------------------------------------------------

    /**
     * Starts the six nodes, creates the cluster and waits until it is healthy (bounded, ~30 s). Calls nest:
     * each {@code open()} needs a matching {@link #close()}.
     *
     * @return this extension, for try-with-resources
     * @throws IllegalStateException when redis-server / redis-cli are not on PATH, or the cluster does not
     *                               come up; the message carries the tails of the node logs
     */
    public RedisClusterExtension open() {
        acquire();
        return this;
    }

    @Override
    void doOpen() {
        servers = ClusterProcesses.start(env);
        topology = new ClusterTopology(servers);
    }

    @Override
    String describeOpened(Duration startup) {
        return "redis cluster " + seedNodes() + " (" + topology.version() + ", masters " + String.join(",", masters())
                + ", up in " + startup.toMillis() + " ms, keyPrefix " + keyPrefix() + ")";
    }

    /** Kills all nodes and deletes their temp dirs. */
    @Override
    void doClose() {
        RedisAdmin.closeAll(servers);
        servers = List.of();
        topology = null;
    }

    // ------------------------------------------------------------------------------------------
    // Accessors
    // ------------------------------------------------------------------------------------------

    /**
     * All six nodes in start order, including any stopped with {@link #killMaster}.
     *
     * @return {@code "127.0.0.1:port"} of each node
     */
    public synchronized List<String> nodes() {
        requireOpen();
        return servers.stream().map(s -> RedisAdmin.address(s.port())).collect(Collectors.toList());
    }

    /**
     * The current masters (those owning slots), as a running node sees them, ordered by their first slot.
     *
     * @return {@code "127.0.0.1:port"} of each master, normally three
     */
    public synchronized List<String> masters() {
        requireOpen();
        return topology.masterPorts().stream().map(RedisAdmin::address).collect(Collectors.toList());
    }

    /**
     * The master currently owning the slot of {@code hashTagOrKey}.
     *
     * @param hashTagOrKey a key such as {@code "{user:42}:count"}, or just a hash tag / key
     * @return {@code "127.0.0.1:port"}
     */
    public synchronized String masterOf(String hashTagOrKey) {
        requireOpen();
        return RedisAdmin.address(topology.ownerPort(JedisClusterCRC16.getSlot(hashTagOrKey)));
    }

    /**
     * Seed nodes for the {@code redisClusterNodes} setting.
     *
     * @return all six nodes, comma separated: {@code "127.0.0.1:p1,...,127.0.0.1:p6"}
     */
    public String seedNodes() {
        return String.join(",", nodes());
    }

    /**
     * A new cluster client seeded with all nodes, whose pools run no idle evictor thread. The caller closes it.
     *
     * @return a new client
     */
    public RedisClusterClient newClient() {
        Set<HostAndPort> seeds = nodes().stream().map(HostAndPort::from).collect(Collectors.toCollection(LinkedHashSet::new));
        return RedisClusterClient.builder().nodes(seeds).poolConfig(NoEvictorPool.config()).build();
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "RedisClusterExtension[" + (isOpen() ? seedNodes() : "not open") + ", keyPrefix=" + keyPrefix() + "]";
        }
    }

    // ------------------------------------------------------------------------------------------
    // Failure injection
    // ------------------------------------------------------------------------------------------

    /**
     * Manual failover ({@code CLUSTER FAILOVER}, coordinated with the master, no writes lost) of the master
     * owning the slot of {@code hashTagOrKey}: one of its replicas takes over. Returns when that replica is
     * master of the slot in the view of every running node, {@code cluster_state:ok} everywhere and the old
     * master is its linked replica (bounded, ~30 s).
     *
     * @param hashTagOrKey a key such as {@code "{user:42}:count"}, or just a hash tag / key
     * @throws IllegalStateException when the master has no linked replica, or the failover does not complete
     */
    public synchronized void failover(String hashTagOrKey) {
        requireOpen();
        int slot = JedisClusterCRC16.getSlot(hashTagOrKey);
        int oldMaster = topology.ownerPort(slot);
        int promoted = topology.linkedReplicaOf(oldMaster, slot);
        long[] requested = {requestManualFailover(promoted)};
        Duration took = RedisAdmin.await("replica " + RedisAdmin.address(promoted) + " to take over slot " + slot
                        + " from " + RedisAdmin.address(oldMaster), READY_TIMEOUT, () -> {
                    String problem = topology.takeoverProblem(slot, promoted, oldMaster);
                    if (problem != null && System.nanoTime() - requested[0] > MANUAL_FAILOVER_RETRY.toNanos()
                            && topology.ownerPort(slot) == oldMaster) {
                        // Redis gives a manual failover 5 s ("Manual failover timed out"): ask again.
                        requested[0] = requestManualFailover(promoted);
                    }
                    return problem;
                }, topology::logTails);
        System.err.println(LOG_PREFIX + "cluster failover of slot " + slot + ": " + RedisAdmin.address(oldMaster)
                + " -> " + RedisAdmin.address(promoted) + " in " + took.toMillis() + " ms");
    }

    /** Sends CLUSTER FAILOVER to {@code replica}; @return System.nanoTime() of the request */
    private static long requestManualFailover(int replica) {
        String reply = RedisAdmin.call(replica, j -> j.clusterFailover());
        if (!"OK".equalsIgnoreCase(reply)) {
            throw new IllegalStateException("CLUSTER FAILOVER on " + RedisAdmin.address(replica) + " answered " + reply);
        }
        return System.nanoTime();
    }

    /**
     * Kills (SIGKILL, like a crash) the master owning the slot of {@code hashTagOrKey} and waits until the
     * cluster has promoted its replica and is {@code cluster_state:ok} again on the running nodes (bounded,
     * ~30 s; takes about node timeout (1 s) plus the election). Bring it back with {@link #restartNode}.
     *
     * @param hashTagOrKey a key such as {@code "{user:42}:count"}, or just a hash tag / key
     * @return the killed node, {@code "127.0.0.1:port"}
     */
    public synchronized String killMaster(String hashTagOrKey) {
        requireOpen();
        int slot = JedisClusterCRC16.getSlot(hashTagOrKey);
        int oldMaster = topology.ownerPort(slot);
        topology.linkedReplicaOf(oldMaster, slot); // fail now rather than leaving the slot without a master
        topology.server(oldMaster).kill();
        Duration took = RedisAdmin.await("a replica of the killed master " + RedisAdmin.address(oldMaster)
                        + " to take over slot " + slot, READY_TIMEOUT,
                () -> topology.takeoverProblem(slot, null, oldMaster), topology::logTails);
        System.err.println(LOG_PREFIX + "cluster master " + RedisAdmin.address(oldMaster) + " killed; slot " + slot
                + " served by " + RedisAdmin.address(topology.ownerPort(slot)) + " after " + took.toMillis() + " ms");
        return RedisAdmin.address(oldMaster);
    }

    /**
     * Starts a node stopped with {@link #killMaster} again on its port (it keeps its cluster config, so it
     * rejoins, as a replica) and waits until the cluster is healthy with all six nodes (bounded, ~30 s).
     * Does nothing when the node is running.
     *
     * @param node {@code "127.0.0.1:port"} as returned by {@link #killMaster} or {@link #nodes()}
     */
    public synchronized void restartNode(String node) {
        requireOpen();
        RedisProcessServer server = topology.server(HostAndPort.from(node).getPort());
        server.restart();
        RedisAdmin.await("restarted node " + node + " to rejoin the cluster", READY_TIMEOUT,
                () -> topology.problem(false), topology::logTails);
    }
}
