package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RateLimiter#refund} through the limiter, on Redis' own clock, for every algorithm and for
 * calendar rules: exact remaining after refunds, once per receipt, nothing for a denial, and
 * nothing once the admission's window has rolled (the key expired and a new window began).
 */
class RateLimiterRefundIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final RedisStoreExtension store = new RedisStoreExtension(redis);

    /** 5 per hour (burst 5): nothing refills or slides within a test, so remaining is exact. */
    static Stream<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            // A concurrency lease is given back by release when its request ends, not by refund.
            if (!algorithm.holdsLeases()) {
                rules.add(Rule.of(algorithm, 5, Duration.ofHours(1)));
            }
        }
        rules.add(Rule.calendar(5, CalendarPeriod.DAY, ZoneOffset.UTC).build());
        return rules.stream();
    }

    /** The rules whose state keeps its life apart from a window's end: all but a plain fixed-window's. */
    static Stream<Rule> rulesWithALife() {
        return rules().filter(rule -> rule.algorithm() != Algorithm.FIXED_WINDOW || rule.calendar() != null);
    }

    private static RateLimiter limiter(String policy, Rule... rules) {
        RateLimiterBuilder builder = store.limiter(policy);
        for (Rule rule : rules) {
            builder.rule(rule);
        }
        return builder.build();
    }

    private static String name(Rule rule) {
        return rule.calendar() != null ? "calendar" : rule.algorithm().configName();
    }

    @ParameterizedTest
    @MethodSource("rules")
    void refundsGiveBackExactlyTheirPermitsOnce(Rule rule) {
        RateLimiter limiter = limiter("exact-" + name(rule), rule);
        List<Decision> admitted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            admitted.add(limiter.tryAcquire("client"));
        }
        Decision denied = limiter.tryAcquire("client");
        assertThat(denied.allowed()).isFalse();
        assertThat(limiter.refund("client", denied)).as("a denial took nothing").isFalse();

        assertThat(limiter.refund("client", admitted.get(1))).isTrue();
        assertThat(limiter.refund("client", admitted.get(3))).isTrue();
        assertThat(limiter.refund("client", admitted.get(3))).as("once per receipt").isFalse();
        assertThat(limiter.peek("client").remaining()).isEqualTo(2);

        assertThat(limiter.tryAcquire("client").allowed()).as("the local deny cache forgot the denial").isTrue();
        assertThat(limiter.tryAcquire("client").remaining()).isZero();
        assertThat(limiter.tryAcquire("client").allowed()).isFalse();
    }

    /**
     * Issue 48, item 2: a refund of an admission made before the client was reset finds nothing of
     * its own in the fresh state, which it would otherwise lower (a calendar period's count, a bucket
     * begun after the reset), and the limiter counts it as kept. fixed-window is not here: its
     * window's end is its life, and a window opened within 10 ms of the old one is taken for it
     * (GiveBackLivesClockIT: one opened 15 ms later is not).
     */
    @ParameterizedTest
    @MethodSource("rulesWithALife")
    void aRefundFromBeforeAResetGivesNothingToTheFreshStateAndIsCountedAsKept(Rule rule) {
        RateLimiter limiter = limiter("reset-" + name(rule), rule);
        Decision before = limiter.tryAcquire("client", 2);
        limiter.reset("client");
        assertThat(limiter.tryAcquire("client", 3).allowed()).isTrue();
        long remaining = limiter.peek("client").remaining();

        assertThat(limiter.refund("client", before)).as("the refund of the life before the reset").isFalse();
        assertThat(limiter.peek("client").remaining()).isEqualTo(remaining);
        assertThat(limiter.stats().refundsKept()).as("counted as kept").isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("rules")
    void permitsAndSeveralRulesComeBackTogether(Rule rule) {
        Rule hourly = rule.calendar() != null ? Rule.calendar(8, CalendarPeriod.DAY, ZoneOffset.UTC).name("a").build()
                : Rule.builder(rule.algorithm(), 8, Duration.ofHours(1)).name("a").build();
        Rule daily = rule.calendar() != null ? Rule.calendar(9, CalendarPeriod.MONTH, ZoneOffset.UTC).name("b").build()
                : Rule.builder(rule.algorithm(), 9, Duration.ofDays(1)).name("b").build();
        RateLimiter limiter = limiter("rules-" + name(rule), hourly, daily);
        limiter.tryAcquire("client", 3);
        Decision four = limiter.tryAcquire("client", 4);
        assertThat(four.remaining()).isEqualTo(1);
        assertThat(limiter.refund("client", four)).isTrue();
        assertThat(limiter.peek("client").remaining()).as("rule a has its 4 back").isEqualTo(5);
        Decision five = limiter.tryAcquire("client", 5);
        assertThat(five.allowed()).as("rule b has its 4 back too: 3 + 5 <= 9").isTrue();
        assertThat(five.remaining()).isZero();
        assertThat(limiter.tryAcquire("client", 1).allowed()).isFalse();
    }

    /** The window algorithms, on a 300 ms window waited out (the admission's own reset, or one window). */
    @ParameterizedTest
    @MethodSource("windows")
    void aRefundAfterTheWindowRolledChangesNothing(Algorithm algorithm) throws InterruptedException {
        Duration window = Duration.ofMillis(300);
        RateLimiter limiter = limiter("rolled-" + algorithm.configName(), Rule.of(algorithm, 5, window));
        Decision old = limiter.tryAcquire("client", 2);
        Duration wait = algorithm == Algorithm.FIXED_WINDOW ? old.resetAfter() : window;
        Thread.sleep(wait.toMillis() + 2);
        assertThat(limiter.tryAcquire("client", 3).allowed()).isTrue();
        String key = limiter.redisKeys("client").get(0);
        byte[] before = redis.client().dump(key);

        assertThat(limiter.refund("client", old)).isFalse();
        assertThat(redis.client().dump(key)).as("the new window's state is untouched").isEqualTo(before);
    }

    static Stream<Algorithm> windows() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.SLIDING_WINDOW);
    }

    @Test
    void aDecisionOfAnotherClientIsRefused() {
        RateLimiter limiter = limiter("other", Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofHours(1)));
        Decision decision = limiter.tryAcquire("a");
        assertThatThrownBy(() -> limiter.refund("b", decision)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not made for this key");
        assertThat(limiter.peek("a").remaining()).isEqualTo(4);
    }

    @Test
    void theTransactionTransportCannotRefund() {
        RateLimiter limiter = store.limiter("tx")
                .transport(Transport.TRANSACTION).rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1))).build();
        Decision decision = limiter.tryAcquire("client");
        assertThat(limiter.refund("client", decision)).isFalse();
        assertThat(limiter.peek("client").remaining()).isEqualTo(4);
    }
}
