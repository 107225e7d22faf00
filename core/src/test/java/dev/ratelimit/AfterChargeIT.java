package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RateLimiter#charge} through the limiter, on Redis' own clock, two limiters of one policy
 * standing for two nodes: a charge is seen by the other node's next decision; past the limit the
 * client owes a debt and is denied until it is paid, each algorithm as refund.lua's charges say; usage below
 * what was taken gives the difference back; a decision is settled once; a denial charges nothing;
 * bounds and unsupported rules are refused; a Redis failure is counted, never thrown; every key keeps
 * a TTL. Windows of an hour: nothing refills or slides within a test, so counts are exact.
 */
class AfterChargeIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    static final RedisStoreExtension store = new RedisStoreExtension(redis);

    private static RateLimiter node(String policy, Rule rule) {
        return store.limiter(policy).rule(rule).build();
    }

    private static Rule perHour(Algorithm algorithm, long limit, long cost) {
        return Rule.builder(algorithm, limit, Duration.ofHours(1)).cost(cost).build();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aChargeOf50AgainstALimitOf100Leaves49ForTheNextRequestOnTheOtherNode(Algorithm algorithm) {
        String policy = "fifty-" + algorithm.configName();
        RateLimiter one = node(policy, perHour(algorithm, 100, 1));
        RateLimiter two = node(policy, perHour(algorithm, 100, 1));
        Decision first = one.tryAcquire("client");
        assertThat(first.remaining()).isEqualTo(99);

        assertThat(one.charge("client", first, 50)).as("49 charged past the 1 taken").isTrue();
        assertThat(one.charge("client", first, 50)).as("a decision is settled once").isFalse();

        Decision next = two.tryAcquire("client");
        assertThat(next.allowed()).isTrue();
        assertThat(next.remaining()).isEqualTo(49);
        assertThat(one.stats().afterCharges()).isEqualTo(1);
        assertThat(one.stats().permitsCharged()).isEqualTo(49);
        assertThat(redis.client().pttl(one.redisKeys("client").get(0))).as("the key keeps a TTL").isPositive();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void pastTheLimitTheClientIsDeniedOnEveryNodeUntilTheDebtIsPaid(Algorithm algorithm) {
        String policy = "debt-" + algorithm.configName();
        RateLimiter one = node(policy, perHour(algorithm, 10, 1));
        RateLimiter two = node(policy, perHour(algorithm, 10, 1));
        Decision first = one.tryAcquire("client");
        Decision second = one.tryAcquire("client");
        // 1 + 10: a debt of one permit past the limit of 10.
        assertThat(one.charge("client", first, 10)).isTrue();

        Decision denied = two.tryAcquire("client");
        assertThat(denied.allowed()).as("the debt is seen on the other node").isFalse();
        assertThat(denied.remaining()).isZero();
        assertThat(two.peek("client").remaining()).isZero();
        // A permit is 6 minutes (3600 s / 10). gcra and token-bucket owe one permit, then need one:
        // 12 minutes. The windows free the first two permits when their entry or window leaves: an hour.
        Duration expected = algorithm == Algorithm.GCRA || algorithm == Algorithm.TOKEN_BUCKET
                ? Duration.ofMinutes(12) : Duration.ofHours(1);
        assertThat(denied.retryAfter()).isBetween(expected.minusSeconds(5), expected.plusMillis(1));
        String key = one.redisKeys("client").get(0);
        // gcra's TAT and the token bucket's time until full are 11 permits ahead: 66 minutes.
        assertThat(redis.client().pttl(key)).as("the key lives while its state matters, no longer")
                .isBetween(expected.minusSeconds(5).toMillis(), Duration.ofMinutes(66).plusSeconds(1).toMillis());

        assertThat(one.charge("client", denied, 5)).as("a denial took nothing: nothing to charge").isFalse();
        // The second admission gives its permit back: the debt is paid down, not forgotten.
        assertThat(one.charge("client", second, 0)).isTrue();
        assertThat(two.peek("client").remaining()).as("the debt is paid down to the limit, still full").isZero();
        assertThat(two.tryAcquire("client").allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void usageBelowWhatWasTakenGivesTheDifferenceBack(Algorithm algorithm) {
        String policy = "below-" + algorithm.configName();
        RateLimiter one = node(policy, perHour(algorithm, 10, 5));
        RateLimiter two = node(policy, perHour(algorithm, 10, 5));
        Decision taken = one.tryAcquire("client");
        assertThat(taken.remaining()).isEqualTo(5);
        assertThat(one.charge("client", taken, 2)).as("3 of the 5 given back").isTrue();
        assertThat(two.peek("client").remaining()).isEqualTo(8);
        assertThat(one.charge("client", one.tryAcquire("client"), 5)).as("usage as taken: nothing to do").isFalse();
        assertThat(two.peek("client").remaining()).isEqualTo(3);
        assertThat(one.stats().afterCharges()).as("refunds are not charges").isZero();
    }

    @Test
    void boundsAndRulesThatCannotKeepADebtAreRefused() {
        RateLimiter limiter = node("bounds", perHour(Algorithm.GCRA, 10, 1));
        Decision admitted = limiter.tryAcquire("client");
        assertThatThrownBy(() -> limiter.charge("client", admitted, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("usage must be between 0 and 10").hasMessageContaining("-1");
        assertThatThrownBy(() -> limiter.charge("client", admitted, 11)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 11");
        assertThatThrownBy(() -> limiter.charge("other", admitted, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not made for this key");
        for (Algorithm refused : new Algorithm[] {Algorithm.SLIDING_WINDOW, Algorithm.LEAKY_BUCKET, Algorithm.CONCURRENCY}) {
            RateLimiter other = node("refused-" + refused.configName(), perHour(refused, 10, 1));
            Decision decision = other.tryAcquire("client");
            assertThatThrownBy(() -> other.charge("client", decision, 5)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("algorithm " + refused.configName());
            other.release(decision);
        }
        RateLimiter twoRules = store.limiter("two-rules").rule(perHour(Algorithm.GCRA, 10, 1))
                .rule(Rule.of(Algorithm.GCRA, 100, Duration.ofDays(1))).build();
        Decision both = twoRules.tryAcquire("client");
        assertThatThrownBy(() -> twoRules.charge("client", both, 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("several rules");
    }

    /**
     * Issue 48, item 4: a limiter lending quota admits from its leases without asking Redis, so a debt
     * charged in Redis would not be seen by a node admitting from its lease. HTTP refuses
     * {@code chargeAfter} with {@code leases} at startup; the API refuses the charge itself, naming the
     * setting, and charges nothing. The limiter still decides, and gives back as {@code countStatus} does.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG", "TOKEN_BUCKET", "GCRA"})
    void aLimiterLendingQuotaRefusesToChargeNamingLeasesAndChargesNothing(Algorithm algorithm) {
        RateLimiter leasing = store.limiter("leasing-" + algorithm.configName()).rule(perHour(algorithm, 10, 1))
                .leases(true).build();
        Decision admitted = leasing.tryAcquire("client");
        assertThat(admitted.allowed()).isTrue();

        assertThatThrownBy(() -> leasing.charge("client", admitted, 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("policy 'leasing-" + algorithm.configName() + "' cannot charge usage")
                .hasMessageContaining("leases (true)");

        assertThat(leasing.peek("client").remaining()).as("nothing charged").isEqualTo(9);
        assertThat(leasing.stats().afterCharges()).isZero();
        assertThat(leasing.refund("client", admitted)).as("the receipt was not spent by the refused charge").isTrue();
        assertThat(leasing.peek("client").remaining()).isEqualTo(10);
    }

    @Test
    void aChargeRedisCannotTakeIsCountedNeverThrownAndTheAdmissionKeepsWhatItTook() throws Exception {
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port());
                RedisStore viaProxy = RedisStore.connect(RedisSettings.builder(proxy.redisUri())
                        .timeout(Duration.ofMillis(500)).build())) {
            RateLimiter limiter = RateLimiter.builder(viaProxy).keyPrefix(redis.keyPrefix()).policyName("failing")
                    .rule(perHour(Algorithm.SLIDING_LOG, 10, 1)).build();
            Decision admitted = limiter.tryAcquire("client");
            proxy.reset();
            assertThat(limiter.charge("client", admitted, 8)).isFalse();
            proxy.heal();
            assertThat(limiter.stats().chargeFailures()).isEqualTo(1);
            assertThat(limiter.stats().afterCharges()).isZero();
            assertThat(node("failing", perHour(Algorithm.SLIDING_LOG, 10, 1)).peek("client").remaining())
                    .as("only what the admission took").isEqualTo(9);
            assertThat(limiter.charge("client", admitted, 8)).as("the receipt was spent: not retried").isFalse();
        }
    }
}
