package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code redisUri=test-only-redis://<name>}: a name redisUri takes, refused otherwise naming the
 * setting and the value, never with Sentinel or Cluster; and without the test kit on the class
 * path (core's tests have its engine but not the kit), a store on it is refused naming the setting
 * and the kit's artifact, saying it is for tests only.
 */
class TestOnlyRedisUriTest {

    @Test
    void aNameOfLettersDigitsDashesAndUnderscores() {
        RedisSettings settings = RedisSettings.of("test-only-redis://shop_2-a");
        assertThat(settings.testOnlyName()).isEqualTo("shop_2-a");
        assertThat(settings.location()).isEqualTo("test-only-redis://shop_2-a");
        assertThat(settings).isEqualTo(RedisSettings.of("test-only-redis://shop_2-a"))
                .isNotEqualTo(RedisSettings.of("test-only-redis://shop"));
        assertThat(RedisSettings.of("redis://localhost:6379").testOnlyName()).isNull();
    }

    @Test
    void anythingElseIsRefusedNamingRedisUriAndTheValue() {
        for (String bad : List.of("test-only-redis://", "test-only-redis://a b", "test-only-redis://a/b",
                "test-only-redis://shop:6379", "test-only-redis:shop", "test-only-redis://u:secret@shop")) {
            assertThatThrownBy(() -> RedisSettings.of(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("redisUri must be test-only-redis://<name>")
                    .hasMessageContaining("but was 'test-only-redis:").hasMessageNotContaining("secret");
        }
    }

    @Test
    void neverWithSentinelOrCluster() {
        assertThatThrownBy(() -> RedisSettings.builder("test-only-redis://shop").cluster(List.of("10.0.0.1:7000")).build())
                .hasMessageStartingWith("redisUri test-only-redis://shop is the test kit's Redis in the JVM");
        assertThatThrownBy(() -> RedisSettings.builder("test-only-redis://shop").sentinel("m", List.of("10.0.0.1:26379"))
                .build()).hasMessageContaining("redisSentinelMaster");
    }

    @Test
    void withoutTheKitAStoreIsRefusedNamingTheSettingAndTheArtifact() {
        assertThatThrownBy(() -> RedisStore.connect("test-only-redis://shop")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("redisUri is 'test-only-redis://shop', the test kit's Redis in the JVM, which is "
                        + "for tests only, but the kit is not on the class path")
                .hasMessageContaining("add dev.ratelimit:ratelimit-test-kit to the tests' dependencies");
    }
}
