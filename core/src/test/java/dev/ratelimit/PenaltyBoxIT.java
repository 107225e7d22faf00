package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The penalty box through {@link RateLimiter}, on Redis' own clock, two limiters of one policy
 * standing for two nodes: the box is seen by both, the local deny cache keeps a boxed client's
 * refusal until its retry-after, a peek shows the box and writes nothing, a reset empties it, the
 * counters count it, and the builder refuses what cannot keep it. (Exact instants, the end of the
 * box included, are {@code PenaltyBoxClockIT}'s.)
 */
class PenaltyBoxIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration PENALTY = Duration.ofSeconds(60);

    private static RedisStore store;

    @BeforeAll
    static void connect() {
        store = RedisStoreExtension.connect(redis.uri());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static RateLimiter node(String policy, Algorithm algorithm, boolean denyCache) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy).localDenyCache(denyCache)
                .rule(Rule.builder(algorithm, 3, Duration.ofSeconds(10)).penalty(PENALTY).build()).build();
    }

    private static String box(String policy, String client) {
        return RedisKeys.penaltyBox(RedisKeys.key(redis.keyPrefix(), policy, client));
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "SLIDING_WINDOW", "TOKEN_BUCKET",
        "LEAKY_BUCKET", "GCRA"})
    void overTheLimitTheClientIsBoxedOnEveryNodeUntilReset(Algorithm algorithm) {
        String policy = "box-" + algorithm.configName();
        RateLimiter one = node(policy, algorithm, true);
        RateLimiter two = node(policy, algorithm, false);
        for (int i = 0; i < 3; i++) {
            assertThat(one.tryAcquire("client").allowed()).isTrue();
        }
        Decision boxing = one.tryAcquire("client");
        assertThat(boxing.allowed()).isFalse();
        assertThat(boxing.penalized()).isTrue();
        assertThat(boxing.retryAfter()).as("exactly the penalty, from Redis").isEqualTo(PENALTY);
        assertThat(boxing.remaining()).isZero();
        assertThat(redis.client().pttl(box(policy, "client"))).as("the box has a TTL: the penalty")
                .isBetween(PENALTY.toMillis() - 2000, PENALTY.toMillis());
        String boxed = redis.client().get(box(policy, "client"));

        Decision cached = one.tryAcquire("client");
        assertThat(cached.penalized()).as("the deny cache keeps the box's answer").isTrue();
        assertThat(one.stats().localCacheDenials()).isEqualTo(1);

        Decision onTheOtherNode = two.tryAcquire("client");
        assertThat(onTheOtherNode.allowed()).isFalse();
        assertThat(onTheOtherNode.penalized()).isTrue();
        assertThat(onTheOtherNode.retryAfter()).isBetween(PENALTY.minusSeconds(2), PENALTY);
        Decision peeked = two.peek("client");
        assertThat(peeked.penalized()).as("a peek shows the box").isTrue();
        assertThat(peeked.allowed()).isFalse();
        assertThat(redis.client().get(box(policy, "client"))).as("neither extends the box").isEqualTo(boxed);
        assertThat(two.tryAcquire("another").allowed()).as("only that client is boxed").isTrue();

        assertThat(one.stats().penalties()).isEqualTo(1);
        assertThat(one.stats().penaltyDenials()).as("the boxing refusal and the cached one").isEqualTo(2);
        assertThat(two.stats().penalties()).isZero();
        assertThat(two.stats().penaltyDenials()).isEqualTo(1);
        assertThat(one.stats().toString()).contains("penalties 1, penalty denials 2");

        one.reset("client");
        assertThat(redis.client().exists(box(policy, "client"))).as("a reset empties the box").isFalse();
        assertThat(two.tryAcquire("client").allowed()).as("and the client is admitted at once").isTrue();
        assertThat(one.tryAcquire("client").allowed()).as("on the node that reset it too").isTrue();
    }

    /**
     * Issue 48, item 3: {@code resetEach} forgets a rule's client as {@code reset} forgets a key, its
     * penalty box included; before, it deleted the count and left the box, which kept refusing.
     */
    @Test
    void resetEachEmptiesTheBoxOfTheRulesClient() {
        RateLimiter limiter = node("box-each", Algorithm.GCRA, false);
        List<String> client = Collections.singletonList("client");
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquireEach(client).allowed()).isTrue();
        }
        assertThat(limiter.tryAcquireEach(client).penalized()).isTrue();

        limiter.resetEach(client);

        Decision after = limiter.tryAcquireEach(client);
        assertThat(after.penalized()).as("the box is gone").isFalse();
        assertThat(after.allowed()).isTrue();
        assertThat(after.remaining()).as("the full limit").isEqualTo(2);
    }

    @Test
    void decisionsOfSeveralClientsInOneCallMeetTheirOwnBoxes() {
        RateLimiter limiter = node("box-batch", Algorithm.GCRA, false);
        for (int i = 0; i < 4; i++) {
            limiter.tryAcquire("boxed");
        }
        List<Decision> decisions = limiter.tryAcquireAll(List.of("boxed", "free", "free", "free", "free"));
        assertThat(decisions.get(0).penalized()).isTrue();
        assertThat(decisions.get(0).retryAfter()).isBetween(PENALTY.minusSeconds(2), PENALTY);
        assertThat(decisions.subList(1, 4)).allMatch(Decision::allowed);
        assertThat(decisions.get(4).penalized()).as("over the limit in the same call: boxed").isTrue();
        assertThat(decisions.get(4).retryAfter()).isEqualTo(PENALTY);
        assertThat(redis.client().exists(box("box-batch", "free"))).isTrue();
    }

    @Test
    void withoutAPenaltyADenialWritesNoBox() {
        RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("no-box")
                .rule(Rule.of(Algorithm.SLIDING_LOG, 1, Duration.ofSeconds(10))).build();
        limiter.tryAcquire("client");
        Decision denied = limiter.tryAcquire("client");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.penalized()).isFalse();
        assertThat(redis.client().exists(box("no-box", "client"))).isFalse();
        assertThat(limiter.stats().penaltyDenials()).isZero();
    }

    @Test
    void theBuilderRefusesWhatCannotKeepTheBox() {
        Rule boxed = Rule.builder(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)).penalty(PENALTY).build();
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(boxed).transport(Transport.TRANSACTION).build())
                .hasMessageStartingWith("penalty (1m) cannot be combined with transport transaction");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(boxed).leases(true).build())
                .hasMessageStartingWith("penalty (1m) cannot be combined with leases");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(boxed).onRedisFailure(FailurePolicy.LOCAL).build())
                .hasMessageStartingWith("penalty (1m) cannot be combined with onRedisFailure local");
        assertThatThrownBy(() -> RateLimiter.builder(store).rule(boxed)
                .rule(Rule.builder(Algorithm.SLIDING_LOG, 50, Duration.ofHours(1)).name("hourly").build()).build())
                .hasMessageStartingWith("penalty (1m) cannot be combined with several rules");
    }
}
