package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On Cluster a warm-up readies every master (each serves its own slots' decisions) and no replica. */
class ClusterWarmUpIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    @Test
    void everyMasterHasTheConnectionsOfABurstAndTheScriptAndNoReplicaIsTouched() throws Exception {
        List<String> replicas = new ArrayList<>(cluster.nodes());
        replicas.removeAll(cluster.masters());
        assertThat(cluster.masters()).hasSize(3);
        try (RedisStore store = RedisStore.connect(RedisSettings.builder("redis://127.0.0.1")
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build())) {
            WarmUpTopologies.warmedUp(store, cluster.keyPrefix());
            for (String master : cluster.masters()) {
                assertThat(WarmUpTopologies.ours(master, 3)).as("connections of ours on master " + master).isEqualTo(3);
                assertThat(WarmUpTopologies.hasTheScript(master)).as("the script on master " + master).isTrue();
            }
            for (String replica : replicas) {
                assertThat(WarmUpTopologies.ours(replica, 0)).as("connections of ours on replica " + replica).isZero();
            }
        }
        for (String node : cluster.nodes()) {
            assertThat(WarmUpTopologies.ours(node, 0)).as("after close, on " + node).isZero();
        }
    }
}
