package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Building a limiter needs no Redis: connections are made on the first decision. */
class RateLimiterBuilderTest {
    private static final RedisStore store = RedisStore.connect("redis://127.0.0.1:1");
    private static final Rule perSecond = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1));

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void keysFollowThePrefixPolicyAndHashTagLayout() {
        RateLimiter one = RateLimiter.builder(store).policyName("api").rule(perSecond).build();
        assertThat(one.redisKeys("203.0.113.7")).containsExactly("ratelimit:api:{203.0.113.7}");

        Rule perHour = Rule.of(Algorithm.SLIDING_LOG, 1000, Duration.ofHours(1));
        RateLimiter two = RateLimiter.builder(store).keyPrefix("rl:").policyName("api").rule(perSecond).rule(perHour)
                .build();
        assertThat(two.redisKeys("c")).containsExactly("rl:api:{c}:10/1s", "rl:api:{c}:1000/1h");
    }

    @Test
    void aLimiterNeedsARule() {
        assertThatThrownBy(() -> RateLimiter.builder(store).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rules must hold at least one rule, but was empty");
    }

    @Test
    void policyNameAndPrefixAreChecked() {
        assertThatThrownBy(() -> RateLimiter.builder(store).policyName("my api").rule(perSecond).build())
                .hasMessage("policyName must be 1 to 64 printable ASCII characters without blanks or braces, "
                        + "but was 'my api'");
        assertThatThrownBy(() -> RateLimiter.builder(store).keyPrefix("{x}").rule(perSecond).build())
                .hasMessage("keyPrefix must be 0 to 64 printable ASCII characters without blanks or braces, "
                        + "but was '{x}'");
    }

    @Test
    void ruleNamesMustDifferAndAlgorithmsMatch() {
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(perSecond).rule(perSecond).build())
                .hasMessageStartingWith("rule names must differ within a limiter, but '10/1s' appears twice");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(perSecond)
                .rule(Rule.of(Algorithm.GCRA, 100, Duration.ofMinutes(1))).build())
                .hasMessageStartingWith("rules of one limiter must share one algorithm");
    }

    @Test
    void transactionsRunOnlyOneFixedWindowOrSlidingLog() {
        Rule gcra = Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(1));
        assertThatThrownBy(() -> RateLimiter.builder(store).transport(Transport.TRANSACTION).rule(gcra).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("transport 'transaction' supports exactly one rule, of fixed-window or sliding-log "
                        + "(MULTI/EXEC cannot make a decision all or nothing), but the rules were [10/1s: gcra 10 per "
                        + "1s, burst 10]; use transport 'lua' for other algorithms and for several rules");
        assertThat(RateLimiter.builder(store).transport(Transport.TRANSACTION).rule(perSecond).build().transport())
                .as("sliding-log").isEqualTo(Transport.TRANSACTION);
        Rule fixed = Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(1));
        Rule fixedHourly = Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofHours(1));
        assertThatThrownBy(() -> RateLimiter.builder(store).transport(Transport.TRANSACTION).rule(fixed)
                .rule(fixedHourly).build())
                .hasMessageStartingWith("transport 'transaction' supports exactly one rule, of fixed-window or sliding-log");
        assertThat(RateLimiter.builder(store).transport(Transport.TRANSACTION).rule(fixed).build().transport())
                .isEqualTo(Transport.TRANSACTION);
    }

    @Test
    void callsCheckTheirArgumentsBeforeAskingRedis() {
        RateLimiter limiter = RateLimiter.builder(store).rule(perSecond).build();
        assertThatThrownBy(() -> limiter.tryAcquire(null)).hasMessage("key must be a non-empty string, but was null");
        assertThatThrownBy(() -> limiter.tryAcquire("")).hasMessage("key must be a non-empty string, but was ''");
        assertThatThrownBy(() -> limiter.tryAcquire("c", 0))
                .hasMessage("permits must be between 1 and 10 (the capacity of rule 10/1s), but was 0");
        assertThatThrownBy(() -> limiter.acquire("c", 1, Duration.ofSeconds(-1)))
                .hasMessage("maxWait must be zero or positive, but was PT-1S");
    }

    @Test
    void aDeadRedisIsOneExceptionTypeWithTheCauseAndNoPassword() {
        RedisStore withPassword = RedisStore.connect(RedisSettings.of("redis://:hunter2@127.0.0.1:1"));
        try {
            RateLimiter limiter = RateLimiter.builder(withPassword).rule(perSecond).build();
            assertThatThrownBy(() -> limiter.tryAcquire("c"))
                    .isInstanceOf(RedisFailureException.class)
                    .hasMessageStartingWith("Redis at redis://****@127.0.0.1:1 failed running sliding-log.lua")
                    .hasMessageNotContaining("hunter2")
                    .hasCauseInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        } finally {
            withPassword.close();
        }
    }
}
