package dev.ratelimit.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** One line of {@code CLUSTER NODES}: a node's id, port, flags, master and slot ranges. */
final class ClusterNodeLine {
    final String id;
    final int port;
    final Set<String> flags;
    final String masterId;
    final List<int[]> slots;

    private ClusterNodeLine(String id, int port, Set<String> flags, String masterId, List<int[]> slots) {
        this.id = id;
        this.port = port;
        this.flags = flags;
        this.masterId = masterId;
        this.slots = slots;
    }

    /** The cluster as the node on {@code port} sees it. */
    static List<ClusterNodeLine> view(int port) {
        return parse(RedisAdmin.call(port, j -> j.clusterNodes()));
    }

    /** Parses the reply of {@code CLUSTER NODES}; slots being migrated or imported are left out. */
    static List<ClusterNodeLine> parse(String clusterNodes) {
        List<ClusterNodeLine> nodes = new ArrayList<>();
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
            nodes.add(new ClusterNodeLine(f[0], port, Set.of(f[2].split(",")), f[3], slots));
        }
        return nodes;
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
