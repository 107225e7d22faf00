package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Several dimensions in one decision on a Redis Cluster (three masters): a global limit, one per
 * user and one per API key, decided all or nothing by one script, since every key of a policy shares
 * its hash tag. Exact per dimension, and a denial by one takes nothing from the others.
 */
class DimensionsClusterIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static RedisStore nodeA;
    private static RedisStore nodeB;
    private static final AtomicInteger policies = new AtomicInteger();

    @BeforeAll
    static void connect() {
        nodeA = RedisStore.connect(settings());
        nodeB = RedisStore.connect(settings());
    }

    @AfterAll
    static void close() {
        nodeA.close();
        nodeB.close();
    }

    private static RedisSettings settings() {
        return RedisSettings.builder("redis://localhost").timeout(Duration.ofSeconds(2))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build();
    }

    /** global 10, user 4, api key 2, all per hour (fixed-window: exact, and the buckets would refill). */
    private static RateLimiter limiter(RedisStore store, String policy, Algorithm algorithm) {
        return RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName(policy).localDenyCache(false)
                .rule(Rule.builder(algorithm, 10, Duration.ofHours(1)).name("global").build())
                .rule(Rule.builder(algorithm, 4, Duration.ofHours(1)).name("user").build())
                .rule(Rule.builder(algorithm, 2, Duration.ofHours(1)).name("key").build()).build();
    }

    private static Decision request(RateLimiter limiter, String user, String apiKey) {
        return limiter.tryAcquireEach(List.of("all", user, apiKey));
    }

    @Test
    void eachDimensionLimitsExactlyAndADenialTakesNothingFromTheOthers() {
        RateLimiter limiter = limiter(nodeA, "dims-" + policies.incrementAndGet(), Algorithm.SLIDING_LOG);

        assertThat(request(limiter, "alice", "k1").allowed()).isTrue();
        assertThat(request(limiter, "alice", "k1").allowed()).isTrue();
        Decision keyDenied = request(limiter, "alice", "k1");
        assertThat(keyDenied.allowed()).as("the key's 2 are spent").isFalse();
        assertThat(keyDenied.rule().name()).as("the denying entry speaks").isEqualTo("key");

        assertThat(request(limiter, "alice", "k2").allowed()).as("alice had 2 of 4: the denial took none")
                .isTrue();
        assertThat(request(limiter, "alice", "k2").allowed()).isTrue();
        Decision userDenied = request(limiter, "alice", "k3");
        assertThat(userDenied.allowed()).isFalse();
        assertThat(userDenied.rule().name()).isEqualTo("user");

        for (int i = 0; i < 6; i++) {
            assertThat(request(limiter, "user" + i, "key" + i).allowed()).as("global %d of 10", 5 + i).isTrue();
        }
        Decision globalDenied = request(limiter, "bob", "kb");
        assertThat(globalDenied.allowed()).isFalse();
        assertThat(globalDenied.rule().name()).isEqualTo("global");
        assertThat(limiter.tryAcquireEach(List.of("all", "bob", "kb")).allowed()).isFalse();

        String tag = cluster.keyPrefix() + limiter.policyName() + ":{" + limiter.policyName() + "}:";
        List<String> keys = List.of(tag + "global:all", tag + "user:alice", tag + "key:k1", tag + "key:k2");
        try (RedisClusterClient admin = cluster.newClient()) {
            for (String key : keys) {
                assertThat(admin.exists(key)).as(key).isTrue();
                assertThat(JedisClusterCRC16.getSlot(key)).as("one slot for the whole policy")
                        .isEqualTo(JedisClusterCRC16.getSlot(keys.get(0)));
            }
            assertThat(admin.exists(tag + "user:bob")).as("bob's denials wrote nothing").isFalse();
        }
    }

    @Test
    void manyThreadsOnTwoNodesAdmitExactlyEachDimensionsLimit() throws Exception {
        String policy = "dims-" + policies.incrementAndGet();
        RateLimiter onA = limiter(nodeA, policy, Algorithm.FIXED_WINDOW);
        RateLimiter onB = limiter(nodeB, policy, Algorithm.FIXED_WINDOW);
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<Decision>> answers = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                RateLimiter limiter = i % 2 == 0 ? onA : onB;
                String user = "u" + (i % 5);
                String key = "k" + (i % 7);
                answers.add(threads.submit(() -> request(limiter, user, key)));
            }
            int admitted = 0;
            for (Future<Decision> answer : answers) {
                Decision decision = answer.get(30, TimeUnit.SECONDS);
                assertThat(decision.degraded()).isFalse();
                admitted += decision.allowed() ? 1 : 0;
            }
            assertThat(admitted).as("the global limit, and no user over 4 nor key over 2").isEqualTo(10);
        } finally {
            threads.shutdownNow();
        }
        String tag = cluster.keyPrefix() + policy + ":{" + policy + "}:";
        try (RedisClusterClient admin = cluster.newClient()) {
            for (int u = 0; u < 5; u++) {
                String count = admin.get(tag + "user:u" + u);
                assertThat(count == null ? 0 : Long.parseLong(count)).as("user u%d", u).isLessThanOrEqualTo(4);
            }
            for (int k = 0; k < 7; k++) {
                String count = admin.get(tag + "key:k" + k);
                assertThat(count == null ? 0 : Long.parseLong(count)).as("key k%d", k).isLessThanOrEqualTo(2);
            }
            assertThat(admin.get(tag + "global:all")).isEqualTo("10");
        }
    }

    @Test
    void keysAreCheckedAgainstTheRules() {
        RateLimiter limiter = limiter(nodeA, "dims-" + policies.incrementAndGet(), Algorithm.GCRA);
        assertThatThrownBy(() -> limiter.tryAcquireEach(List.of("all", "alice")))
                .hasMessage("clientKeys must hold one key per rule (3), but was [all, alice]");
        assertThatThrownBy(() -> limiter.tryAcquireEach(List.of("all", "", "k")))
                .hasMessage("clientKeys must be a non-empty string, but was ''");
    }
}
