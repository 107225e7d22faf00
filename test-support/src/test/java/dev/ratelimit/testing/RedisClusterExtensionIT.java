package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

class RedisClusterExtensionIT {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    @Test
    void sixNodesOnFreePortsThreeMastersAndKeysLandOnEveryMaster() {
        List<String> nodes = cluster.nodes();
        assertThat(nodes).hasSize(RedisClusterExtension.NODE_COUNT).doesNotHaveDuplicates()
                .allMatch(n -> n.startsWith("127.0.0.1:"));
        for (String node : nodes) {
            int port = HostAndPort.from(node).getPort();
            assertThat(port).isNotEqualTo(6379).isLessThan(RedisAdmin.MAX_CLUSTER_PORT);
        }
        assertThat(cluster.seedNodes()).isEqualTo(String.join(",", nodes));
        assertThat(cluster.masters()).hasSize(3).isSubsetOf(nodes);
        assertThat(cluster.keyPrefix()).matches("t[0-9a-f]{12}:");

        // One key per master, found by trying hash tags until every master owns one.
        Map<String, String> keyPerMaster = new LinkedHashMap<>();
        for (int i = 0; keyPerMaster.size() < 3 && i < 1_000; i++) {
            String key = cluster.key("{tag" + i + "}:count");
            keyPerMaster.putIfAbsent(cluster.masterOf(key), key);
        }
        assertThat(keyPerMaster.keySet()).containsExactlyInAnyOrderElementsOf(cluster.masters());

        try (RedisClusterClient client = cluster.newClient()) {
            for (Map.Entry<String, String> e : keyPerMaster.entrySet()) {
                client.set(e.getValue(), "on " + e.getKey());
            }
            for (Map.Entry<String, String> e : keyPerMaster.entrySet()) {
                assertThat(client.get(e.getValue())).isEqualTo("on " + e.getKey());
                // The value really lives on that master.
                int port = HostAndPort.from(e.getKey()).getPort();
                String stored = RedisAdmin.call(port, j -> j.get(e.getValue()));
                assertThat(stored).isEqualTo("on " + e.getKey());
            }
            // Multi-key commands work within a hash tag.
            String a = cluster.key("{multi}:a");
            String b = cluster.key("{multi}:b");
            client.mset(a, "1", b, "2");
            assertThat(client.mget(a, b)).containsExactly("1", "2");
        }
    }

    @Test
    void failoverMovesTheSlotToTheReplicaAndTheClientFollows() {
        String key = cluster.key("{failover}:count");
        try (RedisClusterClient client = cluster.newClient()) {
            client.set(key, "before");
            String before = cluster.masterOf(key);

            cluster.failover(key);

            String after = cluster.masterOf(key);
            assertThat(after).isNotEqualTo(before);
            assertThat(cluster.masters()).hasSize(3).contains(after).doesNotContain(before);
            assertThat(RedisAdmin.info(HostAndPort.from(after).getPort(), "replication")).containsEntry("role", "master");
            assertThat(RedisAdmin.info(HostAndPort.from(before).getPort(), "replication"))
                    .containsEntry("role", "slave").containsEntry("master_link_status", "up");

            // A manual failover loses nothing; the client follows the MOVED redirection.
            assertThat(client.get(key)).isEqualTo("before");
            client.set(key, "after");
            assertThat(client.incr(cluster.key("{failover}:n"))).isEqualTo(1);
            assertThat(client.get(key)).isEqualTo("after");
            String stored = RedisAdmin.call(HostAndPort.from(after).getPort(), j -> j.get(key));
            assertThat(stored).isEqualTo("after");
        }
    }

    @Test
    void killedMasterIsReplacedByItsReplicaAndRejoinsAfterRestart() {
        String key = cluster.key("{killed}:count");
        try (RedisClusterClient client = cluster.newClient()) {
            client.set(key, "1");
            String master = cluster.masterOf(key);

            String killed = cluster.killMaster(key);

            assertThat(killed).isEqualTo(master);
            assertThat(cluster.masterOf(key)).isNotEqualTo(killed);
            assertThat(cluster.masters()).hasSize(3).doesNotContain(killed);
            assertThat(RedisPing.answers("127.0.0.1", HostAndPort.from(killed).getPort(), 500)).isFalse();
            client.set(key, "2");
            assertThat(client.get(key)).isEqualTo("2");

            cluster.restartNode(killed);

            assertThat(RedisAdmin.info(HostAndPort.from(killed).getPort(), "replication"))
                    .containsEntry("role", "slave").containsEntry("master_link_status", "up");
            assertThat(cluster.masters()).hasSize(3).doesNotContain(killed);
            assertThat(client.get(key)).isEqualTo("2");
        }
    }

    @Test
    void withoutRedisOnPathOpenFailsLoudly() {
        RedisClusterExtension noRedis = new RedisClusterExtension(name -> "PATH".equals(name) ? "/nonexistent" : null);
        assertThatThrownBy(noRedis::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the redis-server executable on PATH")
                .hasMessageContaining("never skipped");
        assertThatThrownBy(noRedis::nodes).isInstanceOf(IllegalStateException.class).hasMessageContaining("not open");
    }

    @Test
    void distinctInstancesGetDistinctPrefixes() {
        Set<String> prefixes = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            prefixes.add(new RedisClusterExtension().keyPrefix());
        }
        assertThat(prefixes).hasSize(10).doesNotContain(cluster.keyPrefix());
    }
}
