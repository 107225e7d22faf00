package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Each fault of the proxy, seen by a Jedis client of a real Redis behind it. */
class FaultProxyTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** The timeout of a client that a fault must make time out. */
    private static final int TIMEOUT_MILLIS = 300;
    /**
     * The timeout of a client that must be answered: a bound that only stops a hang, so that a busy
     * machine (two builds on two cores) never turns a late answer into a timeout the test did not make.
     */
    private static final int ANSWER_BOUND_MILLIS = 10_000;

    private FaultProxy proxy;

    @BeforeEach
    void open() {
        proxy = new FaultProxy(redis.host(), redis.port());
    }

    @AfterEach
    void close() {
        proxy.close();
        assertThat(Thread.getAllStackTraces().keySet()).as("no proxy thread left")
                .noneMatch(thread -> thread.getName().startsWith("fault-proxy-" + proxy.port()));
    }

    /** A client expecting answers. */
    private Jedis client() {
        return client(ANSWER_BOUND_MILLIS);
    }

    private Jedis client(int timeoutMillis) {
        return new Jedis(new HostAndPort(proxy.host(), proxy.port()), DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis).socketTimeoutMillis(timeoutMillis).build());
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Test
    void forwardsBothWaysUntilAFault() {
        try (Jedis jedis = client()) {
            String key = redis.key("through");
            jedis.set(key, "value");
            assertThat(jedis.get(key)).isEqualTo("value");
            assertThat(redis.client().get(key)).isEqualTo("value");
        }
        assertThat(proxy.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void latencyDelaysEachAnswerAndHealEndsIt() {
        try (Jedis jedis = client()) {
            jedis.ping();
            proxy.latency(Duration.ofMillis(100));
            long start = System.nanoTime();
            assertThat(jedis.ping()).isEqualTo("PONG");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("a chunk each way")
                    .isGreaterThanOrEqualTo(200);

            proxy.latency(Duration.ofMillis(TIMEOUT_MILLIS + 200));
            jedis.getConnection().setSoTimeout(TIMEOUT_MILLIS);
            assertThatThrownBy(jedis::ping).isInstanceOf(JedisConnectionException.class)
                    .satisfies(e -> assertThat(rootCause(e)).isInstanceOf(SocketTimeoutException.class));
        }
        proxy.heal();
        try (Jedis jedis = client()) {
            // Had the latency stayed, a ping would wait for it both ways: it answers within less than
            // that, so the latency is gone (asserted by the answer, not by a stopwatch with a guessed
            // bound that a busy machine would exceed).
            jedis.getConnection().setSoTimeout(2 * (TIMEOUT_MILLIS + 200) - 1);
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void aBlackholeAcceptsButNeverAnswersAndHealPassesOnWhatItHeld() throws Exception {
        try (Jedis open = client()) {
            open.ping();
            proxy.blackhole();
            assertThatThrownBy(() -> client(TIMEOUT_MILLIS).ping()).as("a new connection hangs too")
                    .satisfies(e -> assertThat(rootCause(e)).isInstanceOf(SocketTimeoutException.class));

            // A command sent into the hole arrives once it is healed.
            String key = redis.key("held");
            open.getConnection().sendCommand(Protocol.Command.SET, key, "late");
            Thread.sleep(100);
            assertThat(redis.client().get(key)).as("held").isNull();
            proxy.heal();
            assertThat(open.getConnection().getStatusCodeReply()).isEqualTo("OK");
            assertThat(open.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void resetEndsOpenConnectionsAndNewOnesWithRst() {
        Jedis open = client();
        open.ping();
        proxy.reset();
        assertThatThrownBy(open::ping).isInstanceOf(JedisConnectionException.class)
                .satisfies(e -> assertThat(rootCause(e)).isInstanceOf(SocketException.class)
                        .hasMessageMatching("(?i).*(reset|broken pipe).*"));
        try {
            open.close();
        } catch (JedisConnectionException goodbyeMeetsTheResetToo) {
            // expected: Jedis flushes on close
        }
        // At once: an RST, never the client's own timeout.
        assertThatThrownBy(() -> client().ping()).isInstanceOf(JedisConnectionException.class)
                .satisfies(e -> assertThat(rootCause(e)).isNotInstanceOf(SocketTimeoutException.class));

        proxy.heal();
        try (Jedis jedis = client()) {
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void refuseStopsListeningAndHealListensOnTheSamePort() {
        try (Jedis open = client()) {
            open.ping();
            proxy.refuse();
            assertThatThrownBy(open::ping).as("open connections closed").isInstanceOf(JedisConnectionException.class);
        }
        // Refused at connect, or (when the accept loop took it just before the socket closed) closed
        // at once: either way no Redis, and no wait (never the client's own timeout).
        assertThatThrownBy(() -> client().ping()).isInstanceOf(JedisConnectionException.class)
                .satisfies(refused -> assertThat(refused.getMessage()).containsAnyOf("Failed to connect",
                        "Unexpected end of stream", "Connection reset"))
                .satisfies(refused -> assertThat(rootCause(refused)).as("refused, not timed out")
                        .isNotInstanceOf(SocketTimeoutException.class));

        proxy.heal();
        try (Jedis jedis = client()) {
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }
}
