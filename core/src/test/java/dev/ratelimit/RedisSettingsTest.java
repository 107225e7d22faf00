package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisSettingsTest {

    @Test
    void aPlainUriGetsSafeDefaults() {
        RedisSettings settings = RedisSettings.of("redis://localhost");
        assertThat(settings.host()).isEqualTo("localhost");
        assertThat(settings.port()).isEqualTo(6379);
        assertThat(settings.tls()).isFalse();
        assertThat(settings.user()).isNull();
        assertThat(settings.password()).isNull();
        assertThat(settings.database()).isZero();
        assertThat(settings.timeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(settings.poolSize()).isEqualTo(32);
        assertThat(settings.poolMaxWait()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void userPasswordDatabaseAndTlsComeFromTheUri() {
        RedisSettings settings = RedisSettings.of("rediss://app:s3cr%40t+x@redis.internal:6380/2");
        assertThat(settings.tls()).isTrue();
        assertThat(settings.user()).isEqualTo("app");
        assertThat(settings.password()).isEqualTo("s3cr@t+x");
        assertThat(settings.port()).isEqualTo(6380);
        assertThat(settings.database()).isEqualTo(2);
        assertThat(RedisSettings.of("redis://:only-password@h").password()).isEqualTo("only-password");
        assertThat(RedisSettings.of("redis://:only-password@h").user()).isNull();
    }

    @Test
    void thePasswordNeverShows() {
        RedisSettings settings = RedisSettings.of("redis://app:hunter2@redis.internal:6380/2");
        assertThat(settings.toString()).doesNotContain("hunter2")
                .isEqualTo("redis://****@redis.internal:6380/2 (timeout 200ms, pool 32, pool wait 200ms)");
        assertThat(settings.redactedUri()).isEqualTo("redis://****@redis.internal:6380/2");
    }

    @Test
    void badUrisNameTheSettingWithoutThePassword() {
        assertThatThrownBy(() -> RedisSettings.of("http://h:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redisUri must look like redis://[user:password@]host[:port][/database] (rediss:// for "
                        + "TLS), but was 'http://h:6379'");
        assertThatThrownBy(() -> RedisSettings.of("redis://u:hunter2@bad host"))
                .hasMessageNotContaining("hunter2").hasMessageContaining("'redis://****@bad host'");
        assertThatThrownBy(() -> RedisSettings.of("redis://:hunter2@h/x"))
                .hasMessage("redisUri database must be a number >= 0 after the last '/', but was 'redis://****@h/x'");
        assertThatThrownBy(() -> RedisSettings.of(null))
                .hasMessage("redisUri must be a redis:// or rediss:// URI, but was null");
    }

    @Test
    void timeoutsAndPoolSizesAreBounded() {
        assertThatThrownBy(() -> RedisSettings.builder("redis://h").timeout(Duration.ZERO).build())
                .hasMessage("redisTimeout must be between 1ms and 1m, but was 0ms");
        assertThatThrownBy(() -> RedisSettings.builder("redis://h").poolSize(0).build())
                .hasMessage("redisPoolSize must be between 1 and 10000, but was 0");
        assertThatThrownBy(() -> RedisSettings.builder("redis://h").poolMaxWait(Duration.ofMinutes(2)).build())
                .hasMessage("redisPoolMaxWait must be between 0ms and 1m, but was 2m");
    }

    @Test
    void equalSettingsCanShareAClient() {
        assertThat(RedisSettings.of("redis://h:1")).isEqualTo(RedisSettings.of("redis://h:1"))
                .hasSameHashCodeAs(RedisSettings.of("redis://h:1"))
                .isNotEqualTo(RedisSettings.of("redis://h:2"));
    }
}
