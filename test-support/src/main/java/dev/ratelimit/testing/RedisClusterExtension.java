package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import redis.clients.jedis.ConnectionPoolConfig;
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
    private static final int MASTER_COUNT = 3;
    private static final int SLOT_COUNT = 16_384;
    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration MANUAL_FAILOVER_RETRY = Duration.ofSeconds(6);

    private final Function<String, String> env;

    private List<RedisProcessServer> servers = List.of();

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
        Path serverBinary = RedisAdmin.requireOnPath(env, "redis-server", "RedisClusterExtension");
        Path cliBinary = RedisAdmin.requireOnPath(env, "redis-cli", "RedisClusterExtension");
        List<RedisProcessServer> started = new ArrayList<>();
        try {
            Set<Integer> reserved = new HashSet<>();
            for (int i = 1; i <= NODE_COUNT; i++) {
                started.add(RedisProcessServer.start(serverBinary, null, "cluster node " + i,
                        () -> RedisAdmin.clusterPort(reserved), RedisClusterExtension::nodeArguments));
            }
            createCluster(cliBinary, started);
            RedisAdmin.await("the new cluster to be ready (3 masters with one linked replica each)", READY_TIMEOUT,
                    () -> problem(started, true), () -> RedisAdmin.logTails(started));
        } catch (RuntimeException | Error e) {
            RedisAdmin.closeAll(started);
            throw e;
        }
        servers = List.copyOf(started);
    }

    @Override
    String describeOpened(Duration startup) {
        return "redis cluster " + seedNodes() + " (" + version() + ", masters " + String.join(",", masters())
                + ", up in " + startup.toMillis() + " ms, keyPrefix " + keyPrefix() + ")";
    }

    /** Kills all nodes and deletes their temp dirs. */
    @Override
    void doClose() {
        RedisAdmin.closeAll(servers);
        servers = List.of();
    }

    private static List<String> nodeArguments(int port, Path dir, Path logFile) {
        List<String> args = new ArrayList<>(RedisProcessServer.standardArguments(port, dir, logFile));
        args.addAll(List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes-" + port + ".conf",
                "--cluster-node-timeout", "1000",
                // 7.0 waits 5 s for more replicas before a diskless full sync: no reason to in tests
                "--repl-diskless-sync-delay", "0"));
        return args;
    }

    private static void createCluster(Path cli, List<RedisProcessServer> nodes) {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        for (RedisProcessServer node : nodes) {
            command.add(RedisAdmin.address(node.port()));
        }
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path out = nodes.get(0).dir().resolve("cluster-create.out");
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            p.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cli + ": " + e.getMessage(), e);
        }
        boolean finished = RedisAdmin.waitFor(p, CREATE_TIMEOUT);
        if (!finished || p.exitValue() != 0) {
            String output;
            try {
                output = Files.readString(out, StandardCharsets.UTF_8);
            } catch (IOException e) {
                output = "(cannot read " + out + ": " + e.getMessage() + ")";
            }
            throw new IllegalStateException(String.join(" ", command)
                    + (finished ? " failed with exit code " + p.exitValue() : " did not finish within "
                            + CREATE_TIMEOUT.toSeconds() + " s")
                    + "; its output:\n" + output.strip() + "\n" + RedisAdmin.logTails(nodes));
        }
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
        return viewFromAnyLiveNode().stream().filter(NodeLine::servesSlots)
                .sorted(Comparator.comparingInt(NodeLine::firstSlot))
                .map(n -> RedisAdmin.address(n.port)).collect(Collectors.toList());
    }

    /**
     * The master currently owning the slot of {@code hashTagOrKey}.
     *
     * @param hashTagOrKey a key such as {@code "{user:42}:count"}, or just a hash tag / key
     * @return {@code "127.0.0.1:port"}
     */
    public synchronized String masterOf(String hashTagOrKey) {
        requireOpen();
        return RedisAdmin.address(ownerPort(JedisClusterCRC16.getSlot(hashTagOrKey)));
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
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        Set<HostAndPort> seeds = nodes().stream().map(HostAndPort::from).collect(Collectors.toCollection(LinkedHashSet::new));
        return RedisClusterClient.builder().nodes(seeds).poolConfig(pool).build();
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
        int oldMaster = ownerPort(slot);
        int promoted = linkedReplicaOf(oldMaster, slot);
        long[] requested = {requestManualFailover(promoted)};
        Duration took = RedisAdmin.await("replica " + RedisAdmin.address(promoted) + " to take over slot " + slot
                        + " from " + RedisAdmin.address(oldMaster), READY_TIMEOUT, () -> {
                    String problem = takeoverProblem(slot, promoted, oldMaster);
                    if (problem != null && System.nanoTime() - requested[0] > MANUAL_FAILOVER_RETRY.toNanos()
                            && ownerPort(slot) == oldMaster) {
                        // Redis gives a manual failover 5 s ("Manual failover timed out"): ask again.
                        requested[0] = requestManualFailover(promoted);
                    }
                    return problem;
                }, () -> RedisAdmin.logTails(servers));
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
        int oldMaster = ownerPort(slot);
        linkedReplicaOf(oldMaster, slot); // fail now rather than leaving the slot without a master
        server(oldMaster).kill();
        Duration took = RedisAdmin.await("a replica of the killed master " + RedisAdmin.address(oldMaster)
                        + " to take over slot " + slot, READY_TIMEOUT,
                () -> takeoverProblem(slot, null, oldMaster), () -> RedisAdmin.logTails(servers));
        System.err.println(LOG_PREFIX + "cluster master " + RedisAdmin.address(oldMaster) + " killed; slot " + slot
                + " served by " + RedisAdmin.address(ownerPort(slot)) + " after " + took.toMillis() + " ms");
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
        RedisProcessServer server = server(HostAndPort.from(node).getPort());
        server.restart();
        RedisAdmin.await("restarted node " + node + " to rejoin the cluster", READY_TIMEOUT,
                () -> problem(servers, false), () -> RedisAdmin.logTails(servers));
    }

    // ------------------------------------------------------------------------------------------
    // Topology
    // ------------------------------------------------------------------------------------------

    /** One line of CLUSTER NODES. */
    private static final class NodeLine {
        final String id;
        final int port;
        final Set<String> flags;
        final String masterId;
        final List<int[]> slots;

        NodeLine(String id, int port, Set<String> flags, String masterId, List<int[]> slots) {
            this.id = id;
            this.port = port;
            this.flags = flags;
            this.masterId = masterId;
            this.slots = slots;
        }

        boolean failing() {
            return flags.contains("fail") || flags.contains("fail?") || flags.contains("handshake")
                    || flags.contains("noaddr");
        }

        boolean servesSlots() {
            return flags.contains("master") && !failing() && !slots.isEmpty();
        }

        boolean owns(int slot) {
            for (int[] range : slots) {
                if (slot >= range[0] && slot <= range[1]) {
                    return true;
                }
            }
            return false;
        }

        int firstSlot() {
            return slots.stream().mapToInt(r -> r[0]).min().orElse(Integer.MAX_VALUE);
        }

        String slotText() {
            return slots.stream().map(r -> r[0] == r[1] ? "" + r[0] : r[0] + "-" + r[1]).collect(Collectors.joining(","));
        }
    }

    private static List<NodeLine> parseNodes(String clusterNodes) {
        List<NodeLine> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\r?\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                continue;
            }
            String address = f[1];
            int at = address.indexOf('@');
            String hostPort = at < 0 ? address : address.substring(0, at);
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            } catch (NumberFormatException e) {
                port = -1; // noaddr
            }
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // migrating / importing
                }
                int dash = f[i].indexOf('-');
                int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
                slots.add(new int[] {from, to});
            }
            nodes.add(new NodeLine(f[0], port, Set.of(f[2].split(",")), f[3], slots));
        }
        return nodes;
    }

    private static List<NodeLine> view(int port) {
        return parseNodes(RedisAdmin.call(port, j -> j.clusterNodes()));
    }

    private List<RedisProcessServer> running(List<RedisProcessServer> nodes) {
        return nodes.stream().filter(RedisProcessServer::isRunning).collect(Collectors.toList());
    }

    private List<NodeLine> viewFromAnyLiveNode() {
        RuntimeException last = null;
        for (RedisProcessServer s : running(servers)) {
            try {
                return view(s.port());
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no cluster node answers CLUSTER NODES", last);
    }

    private int ownerPort(int slot) {
        for (NodeLine n : viewFromAnyLiveNode()) {
            if (n.servesSlots() && n.owns(slot)) {
                return n.port;
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    private RedisProcessServer server(int port) {
        for (RedisProcessServer s : servers) {
            if (s.port() == port) {
                return s;
            }
        }
        throw new IllegalArgumentException("127.0.0.1:" + port + " is not a node of this cluster (" + nodes() + ")");
    }

    /** A running replica of {@code master} whose replication link is up. */
    private int linkedReplicaOf(int master, int slot) {
        for (RedisProcessServer s : running(servers)) {
            try {
                Map<String, String> replication = RedisAdmin.info(s.port(), "replication");
                if ("slave".equals(replication.get("role"))
                        && String.valueOf(master).equals(replication.get("master_port"))
                        && "up".equals(replication.get("master_link_status"))) {
                    return s.port();
                }
            } catch (RuntimeException ignored) {
                // not answering: not a candidate
            }
        }
        throw new IllegalStateException("master " + RedisAdmin.address(master) + " of slot " + slot
                + " has no running replica with its link up");
    }

    /**
     * What keeps the cluster from being healthy, or null: every running node answers
     * {@code cluster_state:ok} and knows all six nodes, flags no running node as failing, all agree on the
     * masters, their slots and which running node replicates which master, the masters are running, and
     * every running replica's link is up. With {@code fresh}: also 3 masters with exactly one replica each.
     */
    private String problem(List<RedisProcessServer> nodes, boolean fresh) {
        List<RedisProcessServer> live = running(nodes);
        Set<Integer> livePorts = live.stream().map(RedisProcessServer::port).collect(Collectors.toSet());
        String agreed = null;
        int agreedFrom = -1;
        Map<Integer, Integer> replicasPerMaster = new TreeMap<>();
        for (RedisProcessServer s : live) {
            int port = s.port();
            Map<String, String> info = RedisAdmin.parseInfo(RedisAdmin.call(port, j -> j.clusterInfo()));
            if (!"ok".equals(info.get("cluster_state"))) {
                return "node " + RedisAdmin.address(port) + " has cluster_state:" + info.get("cluster_state");
            }
            if (!String.valueOf(NODE_COUNT).equals(info.get("cluster_known_nodes"))) {
                return "node " + RedisAdmin.address(port) + " knows " + info.get("cluster_known_nodes") + " nodes";
            }
            List<NodeLine> view = view(port);
            List<NodeLine> masters = view.stream().filter(NodeLine::servesSlots)
                    .sorted(Comparator.comparingInt(NodeLine::firstSlot)).collect(Collectors.toList());
            String owners = masters.stream().map(n -> n.port + "=" + n.slotText()).collect(Collectors.joining(" "))
                    + " | " + replicaSignature(view, livePorts);
            for (NodeLine n : view) {
                if (livePorts.contains(n.port) && n.failing()) {
                    return "node " + RedisAdmin.address(port) + " still flags running node " + n.port + " " + n.flags;
                }
            }
            if (agreed == null) {
                agreed = owners;
                agreedFrom = port;
                int covered = masters.stream().flatMap(n -> n.slots.stream()).mapToInt(r -> r[1] - r[0] + 1).sum();
                if (covered != SLOT_COUNT) {
                    return "node " + RedisAdmin.address(port) + " sees " + covered + " slots served: " + owners;
                }
                for (NodeLine m : masters) {
                    if (!livePorts.contains(m.port)) {
                        return "node " + RedisAdmin.address(port) + " still sees the stopped node " + m.port
                                + " as master: " + owners;
                    }
                    replicasPerMaster.put(m.port, 0);
                }
            } else if (!agreed.equals(owners)) {
                return "nodes " + agreedFrom + " and " + port + " disagree about slot owners: " + agreed + " vs " + owners;
            }
            Map<String, String> replication = RedisAdmin.info(port, "replication");
            if ("slave".equals(replication.get("role"))) {
                if (!"up".equals(replication.get("master_link_status"))) {
                    return "replica " + RedisAdmin.address(port) + " has master_link_status:"
                            + replication.get("master_link_status");
                }
                replicasPerMaster.merge(Integer.parseInt(replication.get("master_port")), 1, Integer::sum);
            }
        }
        if (fresh) {
            if (replicasPerMaster.size() != MASTER_COUNT || replicasPerMaster.values().stream().anyMatch(n -> n != 1)) {
                return "expected " + MASTER_COUNT + " masters with one linked replica each, replicas per master: "
                        + replicasPerMaster;
            }
        }
        return null;
    }

    /** The running replicas and their masters as {@code view} sees them, e.g. {@code 7001>7000 7003>7002}. */
    private static String replicaSignature(List<NodeLine> view, Set<Integer> livePorts) {
        Map<String, Integer> portById = view.stream().collect(Collectors.toMap(n -> n.id, n -> n.port, (a, b) -> a));
        return view.stream().filter(n -> livePorts.contains(n.port) && n.flags.contains("slave"))
                .sorted(Comparator.comparingInt(n -> n.port))
                .map(n -> n.port + ">" + portById.getOrDefault(n.masterId, -1))
                .collect(Collectors.joining(" "));
    }

    /**
     * What keeps the takeover of {@code slot} from being complete, or null. {@code promoted} null: any
     * former replica of {@code oldMaster} (after a kill); otherwise also the running old master must be
     * {@code promoted}'s linked replica.
     */
    private String takeoverProblem(int slot, Integer promoted, int oldMaster) {
        int owner = ownerPort(slot);
        if (owner == oldMaster || (promoted != null && owner != promoted)) {
            return "slot " + slot + " is served by " + RedisAdmin.address(owner);
        }
        Map<String, String> replication = RedisAdmin.info(owner, "replication");
        if (!"master".equals(replication.get("role"))) {
            return RedisAdmin.address(owner) + " reports role:" + replication.get("role");
        }
        String health = problem(servers, false);
        if (health != null) {
            return health;
        }
        if (server(oldMaster).isRunning()) {
            Map<String, String> old = RedisAdmin.info(oldMaster, "replication");
            if (!"slave".equals(old.get("role")) || !String.valueOf(owner).equals(old.get("master_port"))) {
                return "old master " + RedisAdmin.address(oldMaster) + " is not yet a replica of " + owner;
            }
        }
        return null;
    }

    private String version() {
        try {
            return "redis " + RedisAdmin.info(servers.get(0).port(), "server").get("redis_version");
        } catch (RuntimeException e) {
            return "redis ?";
        }
    }
}
