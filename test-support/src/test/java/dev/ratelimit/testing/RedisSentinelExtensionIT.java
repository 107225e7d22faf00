package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;

class RedisSentinelExtensionIT {

    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Test
    void masterReplicaAndThreeSentinelsOnFreePorts() {
        assertThat(sentinel.masterName()).isEqualTo("mymaster");
        String[] sentinels = sentinel.sentinelNodes().split(",");
        assertThat(sentinels).hasSize(3).doesNotHaveDuplicates().allMatch(s -> s.matches("127\\.0\\.0\\.1:\\d+"));
        assertThat(sentinel.sentinelAddresses()).extracting(HostAndPort::toString).containsExactly(sentinels);
        int master = sentinel.masterPort();
        int replica = sentinel.replicaPort();
        assertThat(master).isNotEqualTo(replica).isNotEqualTo(6379);
        assertThat(replica).isNotEqualTo(6379);
        assertThat(RedisAdmin.info(master, "replication")).containsEntry("role", "master");
        assertThat(RedisAdmin.info(replica, "replication")).containsEntry("role", "slave")
                .containsEntry("master_port", String.valueOf(master)).containsEntry("master_link_status", "up");
        for (String s : sentinels) {
            Map<String, String> seen = RedisAdmin.call(HostAndPort.from(s).getPort(), j -> j.sentinelMaster("mymaster"));
            assertThat(seen).containsEntry("port", String.valueOf(master)).containsEntry("num-slaves", "1")
                    .containsEntry("num-other-sentinels", "2");
        }
        assertThat(sentinel.keyPrefix()).matches("t[0-9a-f]{12}:");
    }

    @Test
    void clientWritesFollowsTheFailoverAndWritesAgain() {
        Set<HostAndPort> sentinels = sentinel.sentinelAddresses();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        try (RedisSentinelClient client = RedisSentinelClient.builder().masterName(sentinel.masterName())
                .sentinels(sentinels).poolConfig(pool).build()) {
            int before = sentinel.masterPort();
            assertThat(client.getCurrentMaster().getPort()).isEqualTo(before);
            String key = sentinel.key("k");
            client.set(key, "before");
            // Replication is asynchronous: make sure the replica has it before promoting it.
            assertThat(client.waitReplicas(key, 1, 5_000)).isEqualTo(1);

            sentinel.failover();

            int after = sentinel.masterPort();
            assertThat(after).isNotEqualTo(before);
            assertThat(sentinel.replicaPort()).isEqualTo(before);
            assertThat(RedisAdmin.info(after, "replication")).containsEntry("role", "master");
            assertThat(RedisAdmin.info(before, "replication")).containsEntry("role", "slave")
                    .containsEntry("master_port", String.valueOf(after));

            // The client switches on the sentinels' +switch-master message: allow it a moment.
            awaitClientOn(client, after);
            assertThat(client.get(key)).isEqualTo("before");
            client.set(key, "after");
            assertThat(client.get(key)).isEqualTo("after");
            String onNewMaster = RedisAdmin.call(after, j -> j.get(key));
            assertThat(onNewMaster).isEqualTo("after");

            // The setup is ready for another failover, back to the first node.
            sentinel.failover();
            assertThat(sentinel.masterPort()).isEqualTo(before);
            awaitClientOn(client, before);
            client.set(key, "back");
            String onFirstMaster = RedisAdmin.call(before, j -> j.get(key));
            assertThat(onFirstMaster).isEqualTo("back");
        }
    }

    @Test
    void withoutRedisOnPathOpenFailsLoudly() {
        RedisSentinelExtension noRedis = new RedisSentinelExtension(name -> "PATH".equals(name) ? "" : null);
        assertThatThrownBy(noRedis::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the redis-server executable on PATH");
        assertThatThrownBy(noRedis::masterPort).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not open");
    }

    /** Writes through the client until it talks to the master on {@code port} (bounded, 15 s). */
    private static void awaitClientOn(RedisSentinelClient client, int port) {
        RedisAdmin.await("the sentinel client to follow the master to " + port, Duration.ofSeconds(15), () -> {
            if (client.getCurrentMaster().getPort() != port) {
                return "client still on " + client.getCurrentMaster();
            }
            client.set(sentinel.key("probe"), "x");
            return null;
        }, () -> "");
    }
}
