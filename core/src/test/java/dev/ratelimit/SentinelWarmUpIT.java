package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisSentinelExtension;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Through Sentinel a warm-up readies the current master, where every decision goes, and not the replica. */
class SentinelWarmUpIT {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Test
    void theMasterHasTheConnectionsOfABurstAndTheScriptAndTheReplicaNone() throws Exception {
        String master = "127.0.0.1:" + sentinel.masterPort();
        String replica = "127.0.0.1:" + sentinel.replicaPort();
        try (RedisStore store = RedisStore.connect(RedisSettings.builder("redis://127.0.0.1")
                .sentinel(sentinel.masterName(), Arrays.asList(sentinel.sentinelNodes().split(","))).build())) {
            WarmUpTopologies.warmedUp(store, sentinel.keyPrefix());
            assertThat(WarmUpTopologies.ours(master, 3)).as("connections of ours on the master").isEqualTo(3);
            assertThat(WarmUpTopologies.hasTheScript(master)).isTrue();
            assertThat(WarmUpTopologies.ours(replica, 0)).as("connections of ours on the replica").isZero();
        }
        assertThat(WarmUpTopologies.ours(master, 0)).as("after close").isZero();
    }
}
