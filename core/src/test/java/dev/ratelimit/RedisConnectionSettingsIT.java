package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** ACL user, password and database number from the URI, against a real server. */
class RedisConnectionSettingsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 3, Duration.ofMinutes(1));
    private static final String USER = "limiter" + System.nanoTime();

    @BeforeAll
    static void createUser() {
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            // Only its own keys: it can run the scripts on them and little else.
            admin.sendCommand(Protocol.Command.ACL, "SETUSER", USER, "on", ">s3cr3t+pw", "~" + redis.keyPrefix() + "*",
                    "+@all", "-flushall", "-flushdb");
        }
    }

    @AfterAll
    static void dropUserAndKeys() {
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            admin.sendCommand(Protocol.Command.ACL, "DELUSER", USER);
            admin.select(2);
            admin.del(redis.keyPrefix() + "acl:{c}");
        }
    }

    private static String uri(String password, int database) {
        return "redis://" + USER + ":" + password + "@" + redis.host() + ":" + redis.port() + "/" + database;
    }

    /**
     * A pool wait of zero means "never wait for a connection", not "never wait for a round trip":
     * with coalescing, a decision that queues behind two round trips under way waits for one of them
     * to end, bounded by the timeout, while the pool still has free connections. Before, every such
     * decision failed at once and went to the failure policy with Redis healthy and idle.
     */
    @Test
    void aPoolWaitOfZeroNeverFailsADecisionThatOnlyQueuedForARoundTrip() throws Exception {
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(redis.uri()).poolMaxWait(Duration.ZERO)
                .coalescing(true).build())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("zero-wait")
                    .localDenyCache(false).rule(Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(10))).build();
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(16);
            try {
                java.util.List<java.util.concurrent.Future<Integer>> admitted = new java.util.ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    String client = "client-" + t;
                    // Throws on a Redis failure (no onRedisFailure): any refusal fails the test with its cause.
                    admitted.add(threads.submit(() -> {
                        int count = 0;
                        for (int i = 0; i < 150; i++) {
                            count += limiter.tryAcquire(client).allowed() ? 1 : 0;
                        }
                        return count;
                    }));
                }
                for (java.util.concurrent.Future<Integer> each : admitted) {
                    assertThat(each.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(100);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(((dev.ratelimit.internal.redis.NodeGateway) dev.ratelimit.internal.redis.StoreAccess.gateway(store))
                    .coalescedCalls()).as("decisions queued and travelled together").isPositive();
        }
    }

    @Test
    void anAclUserWithItsPasswordAndDatabaseIsUsed() {
        try (RedisStore store = RedisStore.connect(uri("s3cr3t%2Bpw", 2))) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("acl")
                    .rule(RULE).build();

            assertThat(limiter.tryAcquire("c").remaining()).isEqualTo(2);

            String key = limiter.redisKeys("c").get(0);
            try (Jedis admin = new Jedis(redis.host(), redis.port())) {
                assertThat(admin.exists(key)).as("not in database 0").isFalse();
                admin.select(2);
                assertThat(admin.exists(key)).as("in database 2").isTrue();
            }
        }
    }

    @Test
    void aWrongPasswordIsAFailureThatNeverShowsThePassword() {
        try (RedisStore store = RedisStore.connect(uri("wrong-password", 0))) {
            RateLimiter denying = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("wrong")
                    .onRedisFailure(FailurePolicy.DENY).rule(RULE).build();
            Decision decision = denying.tryAcquire("c");
            assertThat(decision.degraded()).isTrue();
            assertThat(decision.allowed()).isFalse();

            RateLimiter throwing = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("wrong")
                    .rule(RULE).build();
            assertThatThrownBy(() -> throwing.tryAcquire("c"))
                    .isInstanceOf(RedisFailureException.class)
                    .hasMessageContaining("redis://****@")
                    .hasMessageNotContaining("wrong-password");
        }
    }
}
