package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.counter.DistinctCounter;
import dev.ratelimit.counter.SlidingWindowCounter;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's examples, as written there, so they keep working. */
class ReadmeExampleIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void theCoreExampleLimitsTenPerSecondAndAThousandPerHour() {
        int allowed = 0;
        try (RedisStore redis = RedisStore.connect(ReadmeExampleIT.redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(redis)
                    .keyPrefix(ReadmeExampleIT.redis.keyPrefix())
                    .policyName("api")
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)))   // 10 per second
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 1000, Duration.ofHours(1)))   // and 1000 per hour
                    .build();

            for (int i = 0; i < 12; i++) {
                Decision decision = limiter.tryAcquire("client-42");
                if (decision.allowed()) {
                    allowed++;
                } else {
                    assertThat(decision.retryAfterSeconds()).isEqualTo(1);
                    assertThat(decision.rule().name()).isEqualTo("10/1s");
                }
            }
        }
        assertThat(allowed).isEqualTo(10);
    }

    @Test
    void theCounterExamplesCount() {
        String userName = "alice";
        String clientIp = "203.0.113.7";
        try (RedisStore redis = RedisStore.connect(ReadmeExampleIT.redis.uri())) {
            SlidingWindowCounter failedLogins = SlidingWindowCounter.builder(redis, "failed-logins", Duration.ofMinutes(15))
                    .keyPrefix(ReadmeExampleIT.redis.keyPrefix()).build();
            long recentFailures = failedLogins.increment(userName);

            DistinctCounter namesTried = DistinctCounter.builder(redis, "names-per-ip", Duration.ofMinutes(10))
                    .keyPrefix(ReadmeExampleIT.redis.keyPrefix()).build();
            long distinctNames = namesTried.add(clientIp, userName);

            assertThat(recentFailures).isEqualTo(1);
            assertThat(distinctNames).isEqualTo(1);
        }
    }
}
