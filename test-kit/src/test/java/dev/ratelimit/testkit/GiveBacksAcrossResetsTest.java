package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Rule;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A refund ({@code countStatus}, {@code RateLimiter.refund}) of an admission taken before a reset
 * gives nothing back to the fresh state, and one taken after gives its permit back, although the
 * kit's clock stands still: a real Redis never answers a reset and the next write in one
 * microsecond, nor restarts within 10 ms, and the scripts tell the two apart by their instants, so
 * the kit's resets move its clock as a real Redis's would have moved (docs/testing.md, "Reset").
 * Without that, every algorithm here let a client one permit past its limit after a reset, or took
 * one permit from it for good.
 */
class GiveBacksAcrossResetsTest {
    @RegisterExtension
    final TestOnlyRedisExtension redis = new TestOnlyRedisExtension("give-backs");

    static Stream<Rule> rules() {
        Stream<Rule> windows = Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW, Algorithm.SLIDING_LOG,
                Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET)
                .map(algorithm -> Rule.of(algorithm, 2, Duration.ofMinutes(1)));
        return Stream.concat(windows, Stream.of(Rule.calendar(2, CalendarPeriod.DAY, ZoneOffset.UTC).build()));
    }

    private RateLimiter limiter(Rule rule) {
        return RateLimiter.builder(redis.store()).policyName("give-backs").rule(rule).build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void aRefundFromBeforeTheRedisWasResetGivesNothingToTheFreshState(Rule rule) {
        RateLimiter limiter = limiter(rule);
        Decision before = limiter.tryAcquire("ann");
        assertThat(before.allowed()).isTrue();
        redis.reset();
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();

        assertThat(limiter.refund("ann", before)).as("a refund into the state the reset ended").isFalse();
        assertThat(limiter.tryAcquire("ann").allowed()).as("the fresh state's third request").isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void afterAClientsResetOnlyItsNewAdmissionsAreGivenBack(Rule rule) {
        RateLimiter limiter = limiter(rule);
        Decision before = limiter.tryAcquire("ann");
        limiter.reset("ann");
        Decision after = limiter.tryAcquire("ann");
        assertThat(limiter.tryAcquire("ann").allowed()).isTrue();

        assertThat(limiter.refund("ann", before)).as("a refund of an admission the reset forgot").isFalse();
        assertThat(limiter.tryAcquire("ann").allowed()).as("at the limit, nothing given back").isFalse();
        assertThat(limiter.refund("ann", after)).as("a refund of an admission after the reset").isTrue();
        assertThat(limiter.tryAcquire("ann").allowed()).as("the permit given back").isTrue();
        assertThat(limiter.tryAcquire("ann").allowed()).isFalse();
    }
}
