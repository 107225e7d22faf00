package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;



class RedisServerExtensionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void serverAnswersPingAndSetGetUnderKeyPrefix() {
        assertThat(redis.client().ping()).isEqualTo("PONG");
        assertThat(RedisPing.answers(redis.host(), redis.port(), 2_000)).isTrue();
        assertThat(redis.isAnswering()).isTrue();

        assertThat(redis.keyPrefix()).matches("t[0-9a-f]{12}:");
        assertThat(redis.source()).isIn("REDIS_URL", "testcontainers", "redis-server on PATH", "embedded-redis");
        if (redis.owned()) {
            assertThat(redis.uri()).isEqualTo("redis://" + redis.host() + ":" + redis.port());
            assertThat(redis.port()).isNotEqualTo(6379);
        } else {
            assertThat(redis.source()).isEqualTo("REDIS_URL");
        }

        String key = redis.key("greeting");
        assertThat(key).startsWith(redis.keyPrefix());
        redis.client().set(key, "hello");
        assertThat(redis.client().get(key)).isEqualTo("hello");
    }

    @Test
    void keysFindsEverythingUnderThePrefixAcrossScanPages() {
        List<String> keysAndValues = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            String key = redis.key("many:" + i);
            expected.add(key);
            keysAndValues.add(key);
            keysAndValues.add(Integer.toString(i));
        }
        redis.client().mset(keysAndValues.toArray(new String[0]));
        redis.client().set(redis.key("one"), "1");
        expected.add(redis.key("one"));

        List<String> found = redis.keys();

        // Other tests of this class share the prefix, so their keys may show up too.
        assertThat(found).containsAll(expected).doesNotHaveDuplicates()
                .allMatch(k -> k.startsWith(redis.keyPrefix()));
        assertThat(found).filteredOn(k -> k.startsWith(redis.key("many:"))).hasSize(2_500);
    }

    @Test
    void stopRefusesConnectionsAndStartBringsTheServerBackOnTheSamePort() throws Exception {
        if (!redis.owned()) {
            // A shared REDIS_URL server must never be stopped.
            assertThatThrownBy(redis::stop).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only allowed on a server this extension started");
            assertThatThrownBy(redis::start).isInstanceOf(IllegalStateException.class);
            assertThat(redis.isAnswering()).isTrue();
            return;
        }
        assertStopStartCycle(redis);
    }

    @Test
    void embeddedRedisFallbackWorks() throws Exception {
        String host;
        int port;
        try (RedisServerExtension embedded = RedisServerExtension.forced(ServerStrategy.EMBEDDED).open()) {
            assertThat(embedded.source()).isEqualTo("embedded-redis");
            assertThat(embedded.strategy()).isEqualTo(ServerStrategy.EMBEDDED);
            assertThat(embedded.owned()).isTrue();
            assertThat(embedded.keyPrefix()).isNotEqualTo(redis.keyPrefix());
            assertThat(embedded.port()).isNotEqualTo(6379);
            if (redis.owned() && redis.host().equals(embedded.host())) {
                assertThat(embedded.port()).isNotEqualTo(redis.port());
            }
            assertThat(embedded.client().ping()).isEqualTo("PONG");
            assertThat(embedded.serverVersion()).as("the oldest Redis the build proves, README says").startsWith("6.2.");
            assertThat(RedisPing.answers(embedded.host(), embedded.port(), 2_000)).isTrue();
            embedded.client().set(embedded.key("k"), "v");
            assertThat(embedded.keys()).containsExactly(embedded.key("k"));

            assertStopStartCycle(embedded);

            host = embedded.host();
            port = embedded.port();
        }
        assertRefusesConnections(host, port);
    }

    @Test
    void redisUrlServerIsSharedNeverStoppedAndOnlyItsOwnKeysAreDeleted() {
        String outsideKey = redis.key("outside");
        redis.client().set(outsideKey, "keep me");
        String url = redis.uri();
        RedisServerExtension shared = new RedisServerExtension(List.of(ServerStrategy.URL),
                name -> "REDIS_URL".equals(name) ? url : null, name -> null);

        String insideKey;
        try (RedisServerExtension s = shared.open()) {
            assertThat(s.source()).isEqualTo("REDIS_URL");
            assertThat(s.owned()).isFalse();
            assertThat(s.uri()).isEqualTo(url);
            assertThat(s.host()).isEqualTo(redis.host());
            assertThat(s.port()).isEqualTo(redis.port());
            insideKey = s.key("inside");
            s.client().set(insideKey, "mine");
            assertThat(s.keys()).containsExactly(insideKey);

            assertThatThrownBy(s::stop).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only allowed on a server this extension started")
                    .hasMessageContaining("REDIS_URL");
            assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class);
        }

        assertThat(redis.isAnswering()).isTrue();
        assertThat(redis.client().get(outsideKey)).isEqualTo("keep me");
        assertThat(redis.client().exists(insideKey)).isFalse();
    }

    @Test
    void unreachableRedisUrlFailsInsteadOfFallingBack() {
        int closedPort = FreePorts.pick();
        String url = "redis://127.0.0.1:" + closedPort;
        RedisServerExtension ext = new RedisServerExtension(List.of(ServerStrategy.URL, ServerStrategy.EMBEDDED),
                name -> "REDIS_URL".equals(name) ? url : null, name -> null);

        assertThatThrownBy(ext::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REDIS_URL is set to " + url)
                .hasMessageContaining("cannot be used");
    }

    @Test
    void whenNothingWorksTheMessageSaysHowToProvideRedis() {
        Map<String, String> emptyEnvironment = Map.of();
        RedisServerExtension ext = new RedisServerExtension(List.of(ServerStrategy.URL, ServerStrategy.PATH),
                emptyEnvironment::get, name -> null);

        assertThatThrownBy(ext::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No Redis server available")
                .hasMessageContaining("REDIS_URL=redis://host:port")
                .hasMessageContaining("start Docker")
                .hasMessageContaining("install redis-server on PATH")
                .hasMessageContaining("url (REDIS_URL): not set")
                .hasMessageContaining("path (redis-server on PATH): no executable redis-server on PATH");
        assertThatThrownBy(ext::uri).isInstanceOf(IllegalStateException.class).hasMessageContaining("not open");
    }

    @Test
    void strategyPropertyIsValidated() {
        RedisServerExtension ext = new RedisServerExtension(null, name -> null,
                name -> RedisServerExtension.STRATEGY_PROPERTY.equals(name) ? "carrier-pigeon" : null);

        assertThatThrownBy(ext::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("carrier-pigeon")
                .hasMessageContaining("url, testcontainers, path, embedded");
    }

    private static void assertStopStartCycle(RedisServerExtension server) throws Exception {
        String host = server.host();
        int port = server.port();
        server.client().set(server.key("before-stop"), "x");

        server.stop();

        assertRefusesConnections(host, port);
        assertThat(server.isAnswering()).isFalse();
        assertThatThrownBy(() -> server.client().ping()).isInstanceOf(RuntimeException.class);

        server.start();

        assertThat(server.port()).isEqualTo(port);
        assertThat(server.host()).isEqualTo(host);
        assertThat(RedisPing.answers(host, port, 2_000)).isTrue();
        assertThat(server.client().ping()).isEqualTo("PONG");
        // No persistence: a restarted server is empty.
        assertThat(server.keys()).isEmpty();

        server.start(); // already running: no-op
        assertThat(server.client().ping()).isEqualTo("PONG");
    }

    private static void assertRefusesConnections(String host, int port) {
        assertThatThrownBy(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 2_000);
            }
        }).isInstanceOf(ConnectException.class);
    }
}
