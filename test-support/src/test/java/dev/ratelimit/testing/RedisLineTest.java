package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a line is named to the build, and how a server is told to belong to it. */
class RedisLineTest {

    @Test
    void unsetIsRedis62FromTheEmbeddedJar() {
        RedisLine line = RedisLine.current(Map.<String, String>of()::get);
        assertThat(line.name()).isEqualTo("redis-6.2");
        assertThat(line.binary()).isNull();
        assertThat(line.isServedBy("redis 6.2.11")).isTrue();
        assertThat(line.isServedBy("redis 6.20.1")).as("a version is matched by its parts").isFalse();
        assertThat(line.isServedBy("redis 7.0.15")).isFalse();
    }

    @Test
    void aLineIsItsProductAndVersionAndBinary() {
        String sh = Path.of("/bin/sh").toString();
        RedisLine valkey = RedisLine.current(Map.of(RedisLine.PROPERTY, "Valkey-9=" + sh)::get);
        assertThat(valkey.name()).isEqualTo("valkey-9");
        assertThat(valkey.binary()).isEqualTo(Path.of(sh));
        assertThat(valkey.isServedBy("valkey 9.1.2")).isTrue();
        // Valkey's redis_version is 7.2.4: the product tells them apart, not the version.
        assertThat(valkey.isServedBy("redis 7.2.4")).isFalse();
        assertThat(RedisLine.current(Map.of(RedisLine.PROPERTY, "redis-8.0=" + sh)::get).isServedBy("redis 8.0.6"))
                .isTrue();
    }

    @Test
    void aBadLineNamesTheSettingAndWhatIsWrong() {
        assertThatThrownBy(() -> RedisLine.current(Map.of(RedisLine.PROPERTY, "keydb-6=/bin/sh")::get))
                .hasMessageContaining("-Dratelimit.test.redis.line=keydb-6=/bin/sh")
                .hasMessageContaining("product redis or valkey");
        assertThatThrownBy(() -> RedisLine.current(Map.of(RedisLine.PROPERTY, "valkey-9=/nowhere/valkey-server")::get))
                .hasMessageContaining("/nowhere/valkey-server is not an executable file");
    }

    @Test
    void aLineThatDoesNotStartFailsInsteadOfFallingBack() {
        RedisServerExtension extension = new RedisServerExtension(
                List.of(ServerStrategy.LINE, ServerStrategy.EMBEDDED),
                name -> null, Map.of(RedisLine.PROPERTY, "valkey-9=/bin/false")::get);
        assertThatThrownBy(extension::open).hasMessageContaining("valkey-9 (/bin/false) did not start");
    }
}
