package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code INFO server} as real servers answer it (captured with {@code redis-cli INFO server} from
 * redis-server 7.0.15 and 8.0.6 and valkey-server 8.0.1 and 9.1.2, CRLF line ends as sent): which
 * server each is. Valkey reports {@code redis_version:7.2.4} too, which must never be taken for its
 * version.
 */
class ServerIdentityTest {
    private static String info(String server) {
        try (InputStream in = ServerIdentityTest.class.getResourceAsStream("info-server/" + server + ".txt")) {
            assertThat(in).as(server).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void redis70AndRedis80AreRedisWithTheirVersion() {
        ServerIdentity redis7 = ServerIdentity.fromInfo(info("redis-7.0.15"));
        ServerIdentity redis8 = ServerIdentity.fromInfo(info("redis-8.0.6"));

        assertThat(redis7.product()).isEqualTo("Redis");
        assertThat(redis7.version()).isEqualTo("7.0.15");
        assertThat(redis7.known()).isTrue();
        assertThat(redis7).hasToString("Redis 7.0.15");
        assertThat(redis8.name()).isEqualTo("Redis 8.0.6");
    }

    @Test
    void valkeyIsValkeyWithItsOwnVersionNotTheRedisItAnswersAs() {
        ServerIdentity valkey8 = ServerIdentity.fromInfo(info("valkey-8.0.1"));
        ServerIdentity valkey9 = ServerIdentity.fromInfo(info("valkey-9.1.2"));

        assertThat(info("valkey-9.1.2")).as("what makes it hard").contains("redis_version:7.2.4");
        assertThat(valkey9.product()).isEqualTo("Valkey");
        assertThat(valkey9.version()).isEqualTo("9.1.2");
        assertThat(valkey9).hasToString("Valkey 9.1.2");
        assertThat(valkey8.name()).isEqualTo("Valkey 8.0.1");
        assertThat(valkey8).isNotEqualTo(valkey9).isEqualTo(ServerIdentity.fromInfo(info("valkey-8.0.1")));
    }

    @Test
    void lineEndsOfEitherKindAreRead() {
        assertThat(ServerIdentity.fromInfo(info("valkey-9.1.2").replace("\r\n", "\n")).name()).isEqualTo("Valkey 9.1.2");
        assertThat(ServerIdentity.fromInfo("redis_version:6.2.14").name()).isEqualTo("Redis 6.2.14");
    }

    @Test
    void aTextThatSaysNeitherIsUnknownAndNamedRedisAsBefore() {
        assertThat(ServerIdentity.fromInfo(null)).isSameAs(ServerIdentity.UNKNOWN);
        assertThat(ServerIdentity.fromInfo("")).isSameAs(ServerIdentity.UNKNOWN);
        assertThat(ServerIdentity.fromInfo("# Memory\r\nmaxmemory:0\r\n")).isSameAs(ServerIdentity.UNKNOWN);
        assertThat(ServerIdentity.UNKNOWN.known()).isFalse();
        assertThat(ServerIdentity.UNKNOWN).hasToString("unknown");
        assertThat(ServerIdentity.UNKNOWN.name()).isEqualTo("Redis");
        assertThat(ServerIdentity.UNKNOWN.product()).isEqualTo("Redis");
    }

    @Test
    void aValkeyThatOmitsItsVersionIsStillValkey() {
        ServerIdentity valkey = ServerIdentity.fromInfo("# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\n");

        assertThat(valkey.known()).isTrue();
        assertThat(valkey.name()).isEqualTo("Valkey");
        assertThat(valkey.version()).isEmpty();
    }
}
