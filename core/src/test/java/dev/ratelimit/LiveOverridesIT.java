package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Live overrides against a real Redis: set on one limiter ("node"), enforced by another once its
 * refresh interval has passed (driven by a manual clock, so the counts are exact), kept across a
 * restart, refused with the configured values' messages, and read at most once per interval.
 */
class LiveOverridesIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final AtomicLong nodeA = new AtomicLong(1_000_000_000L);
    private final AtomicLong nodeB = new AtomicLong(5_000_000_000L);

    private RateLimiter limiter(RedisStore store, String policy, AtomicLong clock, Rule rule) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy).localDenyCache(false)
                .clock(clock::get).rule(rule).build();
    }

    private static int admitted(RateLimiter limiter, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    private static void pass(AtomicLong clock, Duration duration) {
        clock.addAndGet(duration.toNanos());
    }

    @Test
    void anOverrideSetOnOneNodeIsEnforcedByTheOtherWithinTheInterval() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1));
        try (RedisStore storeA = RedisStoreExtension.connect(redis.uri()); RedisStore storeB = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter a = limiter(storeA, "live", nodeA, rule);
            RateLimiter b = limiter(storeB, "live", nodeB, rule);
            assertThat(admitted(b, "b0", 20)).as("configured").isEqualTo(10);

            a.overrides().setLimit(3, "test on node A");
            assertThat(admitted(a, "a1", 20)).as("the node that set it, at once").isEqualTo(3);
            assertThat(a.tryAcquire("a1").limit()).as("headers tell the override").isEqualTo(3);
            pass(nodeB, Overrides.REFRESH_INTERVAL.minusNanos(1));
            assertThat(admitted(b, "b1", 20)).as("node B, before its interval has passed").isEqualTo(10);
            pass(nodeB, Duration.ofNanos(1));
            assertThat(admitted(b, "b2", 20)).as("node B, once it has").isEqualTo(3);
            assertThat(b.overrides().limit()).isEqualTo(3);
            assertThat(b.overrides().origin()).isEqualTo("test on node A");
            assertThat(b.effectiveRules().get(0).limit()).isEqualTo(3);

            a.overrides().clear("test");
            assertThat(admitted(a, "a2", 20)).as("cleared: configured again at once").isEqualTo(10);
            assertThat(admitted(b, "b3", 20)).as("node B within its interval").isEqualTo(3);
            pass(nodeB, Overrides.REFRESH_INTERVAL);
            assertThat(admitted(b, "b4", 20)).as("node B after it").isEqualTo(10);
            assertThat(b.overrides().limit()).isEqualTo(-1);
            assertThat(b.overrides().origin()).isEmpty();
            assertThat(b.effectiveRules()).containsExactly(rule);
        }
    }

    @Test
    void anOverrideOutlivesARestartAndHasNoTtl() {
        Rule rule = Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1));
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter before = limiter(store, "restart", nodeA, rule);
            before.overrides().setLimit(4, "before the restart");
            before.overrides().setEnforce(false, "before the restart");
            assertThat(redis.client().ttl(before.overrides().redisKey())).as("operator state: no TTL").isEqualTo(-1);
        }
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter after = limiter(store, "restart", nodeB, rule);
            assertThat(admitted(after, "c", 20)).as("the first decision reads the override").isEqualTo(4);
            assertThat(after.overrides().limit()).isEqualTo(4);
            assertThat(after.overrides().enforce()).isFalse();
            assertThat(after.overrides().enforce(true)).as("enforce as overridden").isFalse();
            assertThat(after.overrides().origin()).isEqualTo("before the restart");
        }
    }

    @Test
    void badValuesAreRefusedWithTheConfiguredMessagesAndNothingIsWritten() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter costly = limiter(store, "bad", nodeA,
                    Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1)).cost(5).build());
            assertThatThrownBy(() -> costly.overrides().setLimit(0, "t"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be positive, but was 0");
            assertThatThrownBy(() -> costly.overrides().setLimit(Rule.MAX_LIMIT + 1, "t"))
                    .hasMessageStartingWith("limit must be at most " + Rule.MAX_LIMIT);
            assertThatThrownBy(() -> costly.overrides().setLimit(2, "t"))
                    .hasMessage("cost must be between 1 and the rule's capacity 2, but was 5");
            assertThat(redis.client().exists(costly.overrides().redisKey())).isFalse();

            RateLimiter bucket = limiter(store, "bucket", nodeA, Rule.of(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)));
            assertThatThrownBy(() -> bucket.overrides().setLimit(5, "t")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not apply to token-bucket");
            RateLimiter two = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("two")
                    .rule(Rule.builder(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)).name("s").build())
                    .rule(Rule.builder(Algorithm.SLIDING_LOG, 100, Duration.ofHours(1)).name("h").build()).build();
            assertThatThrownBy(() -> two.overrides().setLimit(5, "t")).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("a limit override applies to a limiter of one rule, but this one has 2");
        }
    }

    @Test
    void gcraBurstScalesWithTheLimit() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter gcra = limiter(store, "gcra", nodeA,
                    Rule.builder(Algorithm.GCRA, 10, Duration.ofMinutes(1)).burst(20).build());
            gcra.overrides().setLimit(5, "t");
            gcra.tryAcquire("c");
            assertThat(gcra.effectiveRules().get(0).limit()).isEqualTo(5);
            assertThat(gcra.effectiveRules().get(0).burst()).isEqualTo(10);
        }
    }

    @Test
    void aValueWrittenByHandThatIsNotOneIsIgnored() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1));
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = limiter(store, "byhand", nodeA, rule);
            redis.client().hset(limiter.overrides().redisKey(), "limit", "ten");
            redis.client().hset(limiter.overrides().redisKey(), "enforce", "maybe");
            assertThat(admitted(limiter, "c", 20)).as("configured").isEqualTo(10);
            assertThat(limiter.overrides().limit()).isEqualTo(-1);
            assertThat(limiter.overrides().enforce()).isNull();
            redis.client().hset(limiter.overrides().redisKey(), "limit", "0");
            pass(nodeA, Overrides.REFRESH_INTERVAL);
            assertThat(admitted(limiter, "d", 20)).as("a limit the rule cannot take is ignored").isEqualTo(10);
            for (String notWhole : new String[] {"5e0", " 5", "5 ", "0x5", "5.0", "inf", "1e30", "99999999999999999999"}) {
                redis.client().hset(limiter.overrides().redisKey(), "limit", notWhole);
                limiter.overrides().refresh();
                assertThat(limiter.overrides().limit()).as("'%s' is no whole number as Java writes one", notWhole)
                        .isEqualTo(-1);
                assertThat(limiter.overrides().toString()).contains("limit unreadable");
            }
        }
    }

    @Test
    void withoutAnOverrideNothingMoreIsAskedPerDecision() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = limiter(store, "quiet", nodeA, Rule.of(Algorithm.SLIDING_LOG, 1_000_000,
                    Duration.ofMinutes(1)));
            limiter.tryAcquire("warm-up");
            long scripts = redis.calls("evalsha", "eval");
            long reads = redis.calls("hmget");
            for (int i = 0; i < 1000; i++) {
                limiter.tryAcquire("c");
            }
            assertThat(redis.calls("evalsha", "eval") - scripts).as("1000 decisions within one interval").isEqualTo(1000);
            assertThat(redis.calls("hmget") - reads).as("overrides read within the interval").isZero();
            pass(nodeA, Overrides.REFRESH_INTERVAL);
            scripts = redis.calls("evalsha", "eval");
            for (int i = 0; i < 1000; i++) {
                limiter.tryAcquire("c");
            }
            assertThat(redis.calls("evalsha", "eval") - scripts).as("1000 decisions and one refresh").isEqualTo(1001);
            assertThat(redis.calls("hmget") - reads).as("overrides read once the interval passed").isEqualTo(1);
        }
    }

}
