package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.RedisClient;

/**
 * Live overrides for a Redis user that may not run scripts ({@code -@scripting}), as RedisRefusalIT
 * makes one: under {@code transport=transaction} they are set, read and cleared without a script,
 * and decisions follow them exactly; under {@code lua} the refused script is logged once at ERROR
 * with what to do, as the decisions' refusal is. How the two ways leave the hash: OverridesParityIT.
 */
class TransactionOverridesIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final AclUser user = new AclUser(redis, "nooverridescripts", "+@all", "-@scripting");

    /** A generous timeout: these tests are about what Redis refuses and answers, not how fast, on a busy machine. */
    private static RedisSettings settings() {
        return RedisSettings.builder(user.uri()).timeout(Duration.ofSeconds(5)).build();
    }

    /**
     * Set on one node, read by another, cleared, without one script call (the user could not make
     * one), each decision meanwhile at exactly the limit in force; node B goes through a caller's
     * client, the other gateway.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG"})
    void liveOverridesWorkForAUserWithoutScriptsUnderTheTransactionTransport(Algorithm algorithm) {
        String policy = "txo" + System.nanoTime();
        Rule rule = Rule.of(algorithm, 10, Duration.ofHours(1));
        AtomicLong clockB = new AtomicLong();
        try (RedisClient client = RedisClient.builder().fromURI(user.uri()).build();
                RedisStore a = RedisStore.connect(settings()); RedisStore b = RedisStore.wrap(client)) {
            RateLimiter onA = RateLimiter.builder(a).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .transport(Transport.TRANSACTION).localDenyCache(false).rule(rule).build();
            RateLimiter onB = RateLimiter.builder(b).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .transport(Transport.TRANSACTION).localDenyCache(false).clock(clockB::get).rule(rule).build();
            assertThat(admitted(onB, "before", 15)).as("configured").isEqualTo(10);
            long scripts = redis.calls("evalsha", "eval");

            onA.overrides().setLimit(3, "ops on A");
            String key = onA.overrides().redisKey();
            assertThat(redis.client().hgetAll(key)).containsEntry("limit", "3").containsEntry("origin", "ops on A");
            assertThat(redis.client().ttl(key)).as("operator state, without a TTL, as the script keeps it")
                    .isEqualTo(-1);
            assertThat(admitted(onA, "a", 15)).as("the node that set it, at once").isEqualTo(3);
            assertThat(admitted(onB, "b", 15)).as("the other node, within its interval").isEqualTo(10);
            clockB.addAndGet(Overrides.REFRESH_INTERVAL.toNanos());
            assertThat(admitted(onB, "c", 15)).as("the other node, after its interval").isEqualTo(3);
            assertThat(onB.overrides().limit()).isEqualTo(3);
            assertThat(onB.overrides().origin()).isEqualTo("ops on A");
            Decision denied = onB.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.limit()).isEqualTo(3);
            assertThat(denied.remaining()).isZero();

            onB.overrides().setEnforce(false, "ops on B");
            onA.overrides().refresh();
            assertThat(onA.overrides().enforce(true)).isFalse();
            assertThat(onA.overrides().origin()).isEqualTo("ops on B");

            onA.overrides().clear("ops on A");
            assertThat(redis.client().exists(key)).isFalse();
            assertThat(admitted(onA, "d", 15)).as("configured again at once").isEqualTo(10);
            clockB.addAndGet(Overrides.REFRESH_INTERVAL.toNanos());
            assertThat(admitted(onB, "e", 15)).isEqualTo(10);
            assertThat(onB.overrides().limit()).isEqualTo(-1);
            assertThat(onB.overrides().enforce()).isNull();

            assertThat(redis.calls("evalsha", "eval") - scripts).as("no script asked for").isZero();
            assertThat(onA.stats().redisRefusals() + onB.stats().redisRefusals()).isZero();
            assertThat(onA.stats().redisErrors() + onB.stats().redisErrors()).isZero();
        }
    }

    /**
     * Under {@code lua} the same user cannot run overrides.lua: the first refused read says so at
     * ERROR with the remedy, and neither later reads nor an operator's refused write say it again;
     * the operator's call fails with the refusal and its remedy.
     */
    @Test
    void underLuaTheRefusedOverridesScriptIsLoggedOnceWithWhatToDo() {
        String policy = "luao" + System.nanoTime();
        AtomicLong clock = new AtomicLong();
        String log;
        RedisFailureException refused;
        try (RedisStore store = RedisStore.connect(settings()); CapturedErr err = new CapturedErr()) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy)
                    .onRedisFailure(FailurePolicy.ALLOW).clock(clock::get)
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 3, Duration.ofMinutes(1))).build();
            for (int i = 0; i < 5; i++) {
                assertThat(limiter.tryAcquire("c").degraded()).isTrue();
                clock.addAndGet(Overrides.REFRESH_INTERVAL.toNanos());
            }
            refused = catchThrowableOfType(RedisFailureException.class,
                    () -> limiter.overrides().setLimit(2, "ops"));
            log = err.text();
        }

        assertThat(refused.remedy()).contains("+@scripting", "transport=transaction");
        String line = "Rate limit policy '" + policy + "' cannot read its live overrides: Redis refuses";
        assertThat(CapturedErr.count(log, line)).as(log).isEqualTo(1);
        assertThat(CapturedErr.count(log, "its live overrides: Redis refuses")).as(log).isEqualTo(1);
        assertThat(log).contains("grant it +@scripting", "or set transport=transaction",
                "Until then the overrides last read stay in force")
                .as("a refusal, not an outage").doesNotContain("cannot read its overrides from Redis");
    }

    private static int admitted(RateLimiter limiter, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return admitted;
    }
}
