package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * Closing a node's pool closes every connection it opened: the idle ones as commons-pool does,
 * and one that was borrowed and never given back, which commons-pool would leave to the GC.
 */
class TrackedSocketsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aConnectionNeverGivenBackIsClosedWithThePool() throws InterruptedException {
        String name = "tracked" + System.nanoTime();
        JedisClientConfig client = DefaultJedisClientConfig.builder().clientName(name).build();
        RedisNodes nodes = RedisNodes.standalone(new HostAndPort(redis.host(), redis.port()), client,
                new GenericObjectPoolConfig<>());
        Connection lost = nodes.pool(null).getResource();
        Connection givenBack = nodes.pool(null).getResource();
        lost.ping();
        givenBack.ping();
        givenBack.close();
        assertThat(redis.connectionsNamed(name)).isEqualTo(2);

        nodes.close();

        assertThat(lost.isConnected()).as("the borrowed one's socket").isFalse();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (redis.connectionsNamed(name) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(redis.connectionsNamed(name)).as("Redis sees none left").isZero();
    }

    @Test
    void closedSocketsAreForgottenSoTheSetStaysAsSmallAsWhatIsOpen() {
        TrackedSockets sockets = new TrackedSockets(new HostAndPort(redis.host(), redis.port()),
                DefaultJedisClientConfig.builder().build());
        for (int i = 0; i < 50; i++) {
            try (Connection connection = new Connection(sockets, DefaultJedisClientConfig.builder().build())) {
                connection.ping();
            }
        }
        assertThat(sockets.openCount()).isZero();
    }
}
