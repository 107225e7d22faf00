package dev.ratelimit.testing;

import java.util.Map;

/** Reading a node's {@code INFO replication}, for the cluster and sentinel extensions' checks. */
final class Replication {

    private Replication() {
    }

    /** Whether {@code replication} (the fields of {@code INFO replication}) is a replica of {@code master} with its link up. */
    static boolean isLinkedReplicaOf(Map<String, String> replication, int master) {
        return "slave".equals(replication.get("role"))
                && String.valueOf(master).equals(replication.get("master_port"))
                && "up".equals(replication.get("master_link_status"));
    }

    /** Null when {@code replica} reports role:slave of {@code master} with its link up; else what it reports. */
    static String replicaProblem(int replica, int master) {
        Map<String, String> replication = RedisAdmin.info(replica, "replication");
        if (!isLinkedReplicaOf(replication, master)) {
            return RedisAdmin.address(replica) + " reports role:" + replication.get("role") + " master_port:"
                    + replication.get("master_port") + " master_link_status:" + replication.get("master_link_status");
        }
        return null;
    }
}
