package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Listeners hear every decision and failure; stats count them, a throwing listener breaks nothing. */
class RateLimitListenerIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Rule RULE = Rule.of(Algorithm.GCRA, 2, Duration.ofMinutes(1));

    /** Records what it hears, as "allowed c", "denied c", "failure c". */
    private static final class Recorder implements RateLimitListener {
        final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onAllowed(String policyName, String key, Decision decision) {
            heard.add("allowed " + key + (decision.degraded() ? " degraded" : ""));
        }

        @Override
        public void onDenied(String policyName, String key, Decision decision) {
            heard.add("denied " + key + (decision.degraded() ? " degraded" : ""));
        }

        @Override
        public void onFailure(String policyName, String key, RedisFailureException cause) {
            heard.add("failure " + key);
        }
    }

    @Test
    void everyDecisionIsHeardAndCounted() {
        Recorder recorder = new Recorder();
        RateLimitListener broken = new RateLimitListener() {
            @Override
            public void onAllowed(String policyName, String key, Decision decision) {
                throw new IllegalStateException("a listener's bug");
            }
        };
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("heard")
                    .listener(broken).listener(recorder).rule(RULE).build();
            for (int i = 0; i < 4; i++) {
                limiter.tryAcquire("c");
            }
            limiter.peek("c");

            assertThat(recorder.heard).containsExactly("allowed c", "allowed c", "denied c", "denied c");
            RateLimiterStats stats = limiter.stats();
            assertThat(stats.allowed()).isEqualTo(2);
            assertThat(stats.denied()).isEqualTo(2);
            assertThat(stats.localCacheDenials()).as("the second denial came from the JVM").isEqualTo(1);
            assertThat(stats.degraded()).isZero();
            assertThat(stats.redisErrors()).isZero();
            assertThat(stats.redisLatencyP50Micros()).isPositive();
            assertThat(stats.circuitBreakerState()).isEqualTo("CLOSED");
        }
    }

    @Test
    void failuresAreHeardBeforeThePolicysDecision() {
        Recorder recorder = new Recorder();
        try (RedisStore dead = RedisStore.connect("redis://127.0.0.1:1")) {
            RateLimiter limiter = RateLimiter.builder(dead).policyName("dead").listener(recorder)
                    .onRedisFailure(FailurePolicy.ALLOW).rule(RULE).build();
            for (int i = 0; i < 4; i++) {
                limiter.tryAcquire("c");
            }

            assertThat(recorder.heard).containsExactly("failure c", "allowed c degraded", "failure c",
                    "allowed c degraded", "failure c", "allowed c degraded", "failure c", "allowed c degraded");
            RateLimiterStats stats = limiter.stats();
            assertThat(stats.degraded()).isEqualTo(4);
            assertThat(stats.redisErrors()).isEqualTo(4);
            assertThat(stats.circuitBreakerState()).as("3 failures opened it").isEqualTo("OPEN");
        }
    }
}
