package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * A Redis user that may not run scripts, as managed services and security teams hand out: a refusal
 * that waiting will not cure is not an outage. It is logged at ERROR once with what to do, counted
 * apart from unreachable Redis and shown while it lasts; each request is still answered by
 * {@code onRedisFailure}. With {@code transport=transaction} the same user is limited exactly.
 */
class RedisRefusalIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final AclUser user = new AclUser(redis, "noscripts", "+@all", "-@scripting");

    @Test
    void scriptsRefusedAreLoggedOnceWithWhatToDoAndCountedApartFromAnOutage() {
        String policy = "refused" + System.nanoTime();
        String log;
        RateLimiter limiter;
        try (RedisStore store = RedisStore.connect(user.uri()); CapturedErr err = new CapturedErr()) {
            limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .onRedisFailure(FailurePolicy.ALLOW).rule(Rule.of(Algorithm.SLIDING_LOG, 3, Duration.ofMinutes(1)))
                    .build();
            for (int i = 0; i < 20; i++) {
                Decision decision = limiter.tryAcquire("c" + (i % 5));
                assertThat(decision.degraded()).as("answered by onRedisFailure").isTrue();
                assertThat(decision.allowed()).isTrue();
            }
            log = err.text();
        }

        RateLimiterStats stats = limiter.stats();
        assertThat(stats.redisRefusals()).isEqualTo(20);
        assertThat(stats.redisErrors()).as("not counted as Redis being unreachable").isZero();
        assertThat(stats.circuitBreakerState()).as("Redis answers: nothing to break").isEqualTo("CLOSED");
        assertThat(stats.redisRefusal()).contains("NOPERM", "+@scripting", "transport=transaction");
        assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RateLimiter - Rate limit policy '" + policy + "': Redis refuses"))
                .as(log).isEqualTo(1);
        assertThat(log).contains("grant it +@scripting", "or set transport=transaction",
                "Until then onRedisFailure=allow decides every request")
                .as("not the outage's line").doesNotContain("policy '" + policy + "' cannot reach Redis");
    }

    @Test
    void aCallerWithoutAFailurePolicyGetsTheRefusalWithItsRemedy() {
        try (RedisStore store = RedisStore.connect(user.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("thrown")
                    .rule(Rule.of(Algorithm.GCRA, 3, Duration.ofMinutes(1))).build();

            assertThatThrownBy(() -> limiter.tryAcquire("c")).isInstanceOfSatisfying(RedisFailureException.class,
                    e -> {
                        assertThat(e.redisAnswered()).isTrue();
                        assertThat(e.remedy()).contains("+@scripting");
                        assertThat(e.getMessage()).doesNotContain(user.password());
                    });
        }
    }

    @Test
    void wrongCredentialsAreARefusalThatNamesThemNeverThePassword() {
        try (RedisStore store = RedisStore.connect(user.uri("not-" + user.password()))) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("wrongpass")
                    .onRedisFailure(FailurePolicy.DENY).rule(Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofMinutes(1)))
                    .build();

            Decision decision = limiter.tryAcquire("c");

            assertThat(decision.degraded()).isTrue();
            assertThat(decision.allowed()).isFalse();
            assertThat(limiter.stats().redisRefusals()).isEqualTo(1);
            assertThat(limiter.stats().redisRefusal()).contains("check the user and password")
                    .doesNotContain(user.password());
        }
    }

    @Test
    void theRefusalShowsOnlyUntilRedisDecidesAgain() {
        String policy = "cured" + System.nanoTime();
        Rule rule = Rule.of(Algorithm.TOKEN_BUCKET, 5, Duration.ofMinutes(1));
        try (RedisStore store = RedisStore.connect(user.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .onRedisFailure(FailurePolicy.ALLOW).localDenyCache(false).rule(rule).build();
            assertThat(limiter.tryAcquire("c").degraded()).isTrue();
            assertThat(limiter.stats().redisRefusal()).isNotNull();

            try (Jedis admin = new Jedis(redis.host(), redis.port())) {
                admin.sendCommand(Protocol.Command.ACL, "SETUSER", user.name(), "+@scripting");
            }
            try {
                Decision decision = limiter.tryAcquire("c");
                assertThat(decision.degraded()).as("the operator granted scripts: Redis decides").isFalse();
                assertThat(decision.remaining()).isEqualTo(4);
                assertThat(limiter.stats().redisRefusal()).isNull();
                assertThat(limiter.stats().redisRefusals()).as("what happened stays counted").isEqualTo(1);
            } finally {
                try (Jedis admin = new Jedis(redis.host(), redis.port())) {
                    admin.sendCommand(Protocol.Command.ACL, "SETUSER", user.name(), "-@scripting");
                }
            }
        }
    }

    /**
     * What the scripts cannot do, MULTI/EXEC does: the same user, two limiters and 32 threads, exactly
     * the limit admitted. The sliding log's transactions race each other for the one key here, and
     * those that lose try again.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG"})
    void theTransactionTransportLimitsAUserWithoutScriptsExactly(Algorithm algorithm) throws Exception {
        String policy = "tx" + System.nanoTime();
        Rule rule = Rule.of(algorithm, 40, Duration.ofHours(1));
        // 32 threads on one key retry their transactions; on a loaded machine the default 200 ms once
        // ran out and a decision went to onRedisFailure. Exactness is what this shows: it may wait.
        RedisSettings patient = RedisSettings.builder(user.uri()).timeout(Duration.ofSeconds(2)).build();
        try (RedisStore a = RedisStore.connect(patient); RedisStore b = RedisStore.connect(patient)) {
            RateLimiter onA = RateLimiter.builder(a).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .transport(Transport.TRANSACTION).localDenyCache(false).rule(rule).build();
            RateLimiter onB = RateLimiter.builder(b).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .transport(Transport.TRANSACTION).localDenyCache(false).rule(rule).build();

            int admitted = AlgorithmContract.hammer(200, 32, i -> (i % 2 == 0 ? onA : onB).tryAcquire("c").allowed());

            assertThat(admitted).isEqualTo(40);
            assertThat(onA.stats().redisRefusals() + onB.stats().redisRefusals()).isZero();
            assertThat(onA.stats().redisErrors() + onB.stats().redisErrors()).as("no race given up on").isZero();
            Decision denied = onA.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
        }
    }
}
