package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import dev.ratelimit.testing.RedisSentinelExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * Issue 37, item 10: what TrackedSocketsIT proves of a standalone node holds for Sentinel and
 * Cluster, whose pools Jedis builds without a socket factory of ours. Closing the nodes disconnects
 * a connection a call still holds, which commons-pool would leave open until the call ended: an
 * undeployed webapp leaves no connection to Redis.
 */
class BorrowedConnectionsIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    private static JedisClientConfig named(String name) {
        return DefaultJedisClientConfig.builder().clientName(name).build();
    }

    @Test
    void aClusterConnectionACallHoldsIsClosedWithTheNodes() throws InterruptedException {
        String name = "borrowed-cluster" + System.nanoTime();
        Set<HostAndPort> seeds = new HashSet<>();
        for (String node : cluster.seedNodes().split(",")) {
            seeds.add(HostAndPort.from(node));
        }
        RedisNodes nodes = RedisNodes.cluster(seeds, named(name), new GenericObjectPoolConfig<>());
        HostAndPort master = nodes.nodeFor("k");

        assertClosedWithTheNodes(nodes, master, name);
    }

    @Test
    void aSentinelMastersConnectionACallHoldsIsClosedWithTheNodes() throws InterruptedException {
        String name = "borrowed-sentinel" + System.nanoTime();
        RedisNodes nodes = RedisNodes.sentinel(sentinel.masterName(), sentinel.sentinelAddresses(), named(name),
                DefaultJedisClientConfig.builder().build(), new GenericObjectPoolConfig<>());
        HostAndPort master = nodes.nodeFor("k");

        assertClosedWithTheNodes(nodes, master, name);
    }

    /**
     * A call holds a connection (its command waits, as one stuck at undeploy would) while the nodes
     * close: the connection is disconnected then, not when the call ends; one given back is closed
     * with its pool, as before.
     */
    private static void assertClosedWithTheNodes(RedisNodes nodes, HostAndPort master, String name)
            throws InterruptedException {
        NodeHealth health = new NodeHealth(new CircuitBreaker(5, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ZERO, System::nanoTime), System.nanoTime());
        NodeConnections.run(nodes, master, health, false, false, (connection, asking) -> connection.ping());
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Connection> held = new AtomicReference<>();
        Thread stuck = new Thread(() -> {
            try {
                NodeConnections.run(nodes, master, health, false, false, (connection, asking) -> {
                    connection.ping();
                    held.set(connection);
                    holding.countDown();
                    awaitQuietly(closed);
                    return null;
                });
            } catch (RuntimeException closing) {
                // the store closed under it
            }
        });
        stuck.start();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(connectionsNamed(master, name)).as("the one connection, held (the first call gave it back)").isEqualTo(1);

        nodes.close();

        assertThat(held.get().isConnected()).as("the held one's socket, while its call still runs").isFalse();
        closed.countDown();
        stuck.join(10_000);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (connectionsNamed(master, name) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(connectionsNamed(master, name)).as("Redis sees none left").isZero();
        assertThat(nodes.borrowed().size()).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long connectionsNamed(HostAndPort node, String name) {
        try (Jedis admin = new Jedis(node)) {
            return Arrays.stream(admin.clientList().split("\n")).filter(line -> line.contains(" name=" + name + " ")).count();
        }
    }
}
