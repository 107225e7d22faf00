package dev.ratelimit.testing;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the nodes of a {@link RedisClusterExtension} say about the cluster: which master owns which slot,
 * which replica is linked to which master, and what still keeps the cluster (or a failover) from being
 * complete. Asks the running nodes every time; holds no state of its own besides the node processes.
 */
final class ClusterTopology {

    private static final int MASTER_COUNT = 3;
    private static final int SLOT_COUNT = 16_384;

    private final List<RedisProcessServer> nodes;

    /** @param nodes all node processes of the cluster, running or not */
    ClusterTopology(List<RedisProcessServer> nodes) {
        this.nodes = nodes;
    }

    /** @return the current masters' ports, as a running node sees them, ordered by their first slot */
    List<Integer> masterPorts() {
        return viewFromAnyLiveNode().stream().filter(ClusterNodeLine::servesSlots)
                .sorted(Comparator.comparingInt(ClusterNodeLine::firstSlot))
                .map(n -> n.port).collect(Collectors.toList());
    }

    /** @return the port of the master serving {@code slot} */
    int ownerPort(int slot) {
        for (ClusterNodeLine n : viewFromAnyLiveNode()) {
            if (n.servesSlots() && n.owns(slot)) {
                return n.port;
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /** @return the node process on {@code port} */
    RedisProcessServer server(int port) {
        for (RedisProcessServer s : nodes) {
            if (s.port() == port) {
                return s;
            }
        }
        List<String> addresses = nodes.stream().map(s -> RedisAdmin.address(s.port())).collect(Collectors.toList());
        throw new IllegalArgumentException("127.0.0.1:" + port + " is not a node of this cluster (" + addresses + ")");
    }

    /** A running replica of {@code master} whose replication link is up. */
    int linkedReplicaOf(int master, int slot) {
        for (RedisProcessServer s : running()) {
            try {
                if (Replication.isLinkedReplicaOf(RedisAdmin.info(s.port(), "replication"), master)) {
                    return s.port();
                }
            } catch (RuntimeException ignored) {
                // not answering: not a candidate
            }
        }
        throw new IllegalStateException("master " + RedisAdmin.address(master) + " of slot " + slot
                + " has no running replica with its link up");
    }

    /** The log tails of all nodes, for failure messages. */
    String logTails() {
        return RedisAdmin.logTails(nodes);
    }

    /** @return e.g. {@code "redis 7.0.15"}, from the first node; {@code "redis ?"} when it does not say */
    String version() {
        try {
            return "redis " + RedisAdmin.info(nodes.get(0).port(), "server").get("redis_version");
        } catch (RuntimeException e) {
            return "redis ?";
        }
    }

    private List<RedisProcessServer> running() {
        return nodes.stream().filter(RedisProcessServer::isRunning).collect(Collectors.toList());
    }

    private List<ClusterNodeLine> viewFromAnyLiveNode() {
        RuntimeException last = null;
        for (RedisProcessServer s : running()) {
            try {
                return ClusterNodeLine.view(s.port());
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no cluster node answers CLUSTER NODES", last);
    }

    /**
     * What keeps the cluster from being healthy, or null: every running node answers
     * {@code cluster_state:ok} and knows all six nodes, flags no running node as failing, all agree on the
     * masters, their slots and which running node replicates which master, the masters are running, and
     * every running replica's link is up. With {@code fresh}: also 3 masters with exactly one replica each.
     */
    String problem(boolean fresh) {
        List<RedisProcessServer> live = running();
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
            if (!String.valueOf(RedisClusterExtension.NODE_COUNT).equals(info.get("cluster_known_nodes"))) {
                return "node " + RedisAdmin.address(port) + " knows " + info.get("cluster_known_nodes") + " nodes";
            }
            List<ClusterNodeLine> view = ClusterNodeLine.view(port);
            List<ClusterNodeLine> masters = view.stream().filter(ClusterNodeLine::servesSlots)
                    .sorted(Comparator.comparingInt(ClusterNodeLine::firstSlot)).collect(Collectors.toList());
            String owners = masters.stream().map(n -> n.port + "=" + n.slotText()).collect(Collectors.joining(" "))
                    + " | " + replicaSignature(view, livePorts);
            for (ClusterNodeLine n : view) {
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
                for (ClusterNodeLine m : masters) {
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
    private static String replicaSignature(List<ClusterNodeLine> view, Set<Integer> livePorts) {
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
    String takeoverProblem(int slot, Integer promoted, int oldMaster) {
        int owner = ownerPort(slot);
        if (owner == oldMaster || (promoted != null && owner != promoted)) {
            return "slot " + slot + " is served by " + RedisAdmin.address(owner);
        }
        Map<String, String> replication = RedisAdmin.info(owner, "replication");
        if (!"master".equals(replication.get("role"))) {
            return RedisAdmin.address(owner) + " reports role:" + replication.get("role");
        }
        String health = problem(false);
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
}
