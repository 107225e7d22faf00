package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link RateLimiter#recentActivity()} as the limiter fills it, on a manual wall clock. */
class RecentActivityTest {
    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();
    private final AtomicLong millis = new AtomicLong(1_800_000_000_000L);

    private RateLimiter limiter(int limit) {
        return RateLimiter.builder(TestStores.over(redis)).clock(redis::nanoTime).wallClock(millis::get)
                .localDenyCache(false).rule(Rule.of(Algorithm.FIXED_WINDOW, limit, Duration.ofHours(1))).build();
    }

    @Test
    void decisionsLandInTheirSecondAndDenialsNameTheirKey() {
        RateLimiter limiter = limiter(2);
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire("alice");
        }
        millis.addAndGet(2000);
        limiter.tryAcquire("bob");
        limiter.tryAcquire("alice");

        RecentActivity activity = limiter.recentActivity();

        assertThat(activity.startSecond()).isEqualTo(1_800_000_002L - 299);
        assertThat(activity.allowedPerSecond()[299]).isEqualTo(1);
        assertThat(activity.deniedPerSecond()[299]).isEqualTo(1);
        assertThat(activity.allowedPerSecond()[297]).isEqualTo(2);
        assertThat(activity.deniedPerSecond()[297]).isEqualTo(1);
        assertThat(activity.allowed()).isEqualTo(3);
        assertThat(activity.denied()).isEqualTo(2);
        assertThat(activity.mostDenied()).extracting(DeniedKeyText::of).containsExactly("alice=2");

        millis.addAndGet(300_000);
        assertThat(limiter.recentActivity().allowed()).as("five minutes later").isZero();
    }

    @Test
    void aKeyRedisWouldDigestIsShownAsADigestAndADigestStaysOne() {
        RateLimiter limiter = limiter(1);
        String longKey = String.join("", java.util.Collections.nCopies(200, "x"));
        String digest = RedisKeys.digest("sk_live_secret");
        for (String key : Arrays.asList(longKey, longKey, "caf\u00e9", "caf\u00e9", digest, digest)) {
            limiter.tryAcquire(key);
        }

        assertThat(limiter.recentActivity().mostDenied()).extracting(RecentActivity.DeniedKey::key)
                .containsExactlyInAnyOrder(RedisKeys.digest(longKey), RedisKeys.digest("caf\u00e9"), digest);
    }

    /** Formats a denied key for assertions. */
    private static final class DeniedKeyText {
        static String of(RecentActivity.DeniedKey key) {
            return key.key() + "=" + key.denials();
        }
    }
}
