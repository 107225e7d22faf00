package dev.ratelimit.internal.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.rules.LocalRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The node's own limiter of {@code onRedisFailure=local}, on a manual clock: exact counts at the local
 * limit, exact retry-after for every algorithm, state that clears and goes, a bound on clients that
 * holds under a flood of distinct keys, and several rules all or nothing.
 */
class LocalLimiterTest {
    /** Starts far from zero, as System.nanoTime may: the limiter measures from its own start. */
    private final AtomicLong nanos = new AtomicLong(-5_000_000_000L);

    private LocalLimiter limiter(int maxKeys, Rule... rules) {
        return new LocalLimiter(List.of(rules), maxKeys, nanos::get, System::currentTimeMillis);
    }

    private LocalLimiter limiter(Rule... rules) {
        return limiter(1000, rules);
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    private static Decision take(LocalLimiter limiter, String key) {
        return limiter.decide(key, null, true);
    }

    private static int admitted(LocalLimiter limiter, String key, int tries) {
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            admitted += take(limiter, key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    private static Rule rule(Algorithm algorithm, long limit, Duration window) {
        return Rule.of(algorithm, limit, window);
    }

    @ParameterizedTest
    // concurrency has no local twin: onRedisFailure=local refuses it (ConcurrencyIT).
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
    void everyAlgorithmAdmitsExactlyItsLimitAndADenialIsALocalDecisionWithHeaders(Algorithm algorithm) {
        LocalLimiter limiter = limiter(rule(algorithm, 3, Duration.ofSeconds(10)));

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            decisions.add(take(limiter, "c"));
        }

        assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, true, false, false);
        assertThat(decisions).extracting(Decision::remaining).containsExactly(2L, 1L, 0L, 0L, 0L);
        assertThat(decisions).allSatisfy(decision -> {
            assertThat(decision.local()).isTrue();
            assertThat(decision.degraded()).isTrue();
            assertThat(decision.limit()).isEqualTo(3);
        });
        Decision denied = decisions.get(3);
        // sliding-window waits into the next window, for this one's count to weigh less.
        assertThat(denied.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(admitted(limiter, "other", 5)).as("each client has its own state").isEqualTo(3);
    }

    @Test
    void fixedWindowRetryAfterIsTheWindowsEnd() {
        LocalLimiter limiter = limiter(rule(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10)));
        take(limiter, "c");
        advance(Duration.ofSeconds(3));
        Decision second = take(limiter, "c");
        assertThat(second.resetAfter()).isEqualTo(Duration.ofSeconds(7));

        Decision denied = take(limiter, "c");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(7));

        advance(Duration.ofSeconds(7).minusNanos(1000));
        assertThat(take(limiter, "c").allowed()).as("a microsecond early").isFalse();
        advance(Duration.ofNanos(1000));
        Decision again = take(limiter, "c");
        assertThat(again.allowed()).as("exactly at retry-after").isTrue();
        assertThat(again.remaining()).isEqualTo(1);
        assertThat(again.resetAfter()).as("a new window").isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void slidingLogRetryAfterIsWhenTheOldestRequestLeaves() {
        LocalLimiter limiter = limiter(rule(Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10)));
        take(limiter, "c");
        advance(Duration.ofSeconds(2));
        take(limiter, "c");
        advance(Duration.ofSeconds(2));
        take(limiter, "c");
        advance(Duration.ofSeconds(1));

        Decision denied = take(limiter, "c");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(denied.resetAfter()).as("the newest leaves at 14 s").isEqualTo(Duration.ofSeconds(9));

        advance(Duration.ofSeconds(5).minusNanos(1000));
        assertThat(take(limiter, "c").allowed()).isFalse();
        advance(Duration.ofNanos(1000));
        assertThat(take(limiter, "c").allowed()).isTrue();
        Decision next = take(limiter, "c");
        assertThat(next.allowed()).isFalse();
        assertThat(next.retryAfter()).as("the one from 2 s leaves at 12 s").isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void slidingWindowWeighsThePreviousWindow() {
        // 4 per 10 s: 4 in the first window; 2.5 s into the next they weigh 4 × 0.75 = 3, so one fits.
        LocalLimiter limiter = limiter(rule(Algorithm.SLIDING_WINDOW, 4, Duration.ofSeconds(10)));
        assertThat(admitted(limiter, "c", 4)).isEqualTo(4);
        advance(Duration.ofMillis(12_500));
        assertThat(take(limiter, "c").allowed()).isTrue();
        Decision denied = take(limiter, "c");
        assertThat(denied.allowed()).isFalse();
        // 4 × (10 - e)/10 + 1 + 1 <= 4 once e >= 5 s: 2.5 s from now, plus the script's one microsecond.
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofMillis(2500).plusNanos(1000));
        advance(denied.retryAfter());
        assertThat(take(limiter, "c").allowed()).isTrue();
    }

    @Test
    void tokenBucketRefillsOneTokenPerIntervalAndBurstIsTheCapacity() {
        LocalLimiter limiter = limiter(Rule.builder(Algorithm.TOKEN_BUCKET, 2, Duration.ofSeconds(10)).burst(3).build());
        assertThat(admitted(limiter, "c", 5)).isEqualTo(3);
        Decision denied = take(limiter, "c");
        assertThat(denied.retryAfter()).as("one token per 5 s").isEqualTo(Duration.ofSeconds(5));
        assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(15));
        advance(Duration.ofSeconds(5).minusNanos(1000));
        assertThat(take(limiter, "c").allowed()).isFalse();
        advance(Duration.ofNanos(1000));
        assertThat(take(limiter, "c").allowed()).isTrue();
        assertThat(take(limiter, "c").allowed()).isFalse();
    }

    @Test
    void leakyBucketDrainsAtTheRate() {
        LocalLimiter limiter = limiter(Rule.builder(Algorithm.LEAKY_BUCKET, 3, Duration.ofSeconds(9)).burst(2).build());
        assertThat(admitted(limiter, "c", 4)).isEqualTo(2);
        Decision denied = take(limiter, "c");
        assertThat(denied.retryAfter()).as("one permit drains every 3 s").isEqualTo(Duration.ofSeconds(3));
        assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(3).minusNanos(1000));
        assertThat(take(limiter, "c").allowed()).isFalse();
        advance(Duration.ofNanos(1000));
        assertThat(take(limiter, "c").allowed()).isTrue();
    }

    @Test
    void gcraSendsItsBurstThenOnePerInterval() {
        LocalLimiter limiter = limiter(Rule.builder(Algorithm.GCRA, 10, Duration.ofSeconds(60)).burst(3).build());
        assertThat(admitted(limiter, "c", 3)).isEqualTo(3);
        Decision denied = take(limiter, "c");
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(18));
        advance(Duration.ofSeconds(6).minusNanos(1000));
        assertThat(take(limiter, "c").allowed()).isFalse();
        advance(Duration.ofNanos(1000));
        assertThat(take(limiter, "c").allowed()).isTrue();
    }

    @ParameterizedTest
    // concurrency has no local twin: onRedisFailure=local refuses it (ConcurrencyIT).
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
    void aClientsStateExpiresOnceItsWindowOrBucketIsClearAndIsThenDropped(Algorithm algorithm) {
        LocalLimiter limiter = limiter(rule(algorithm, 2, Duration.ofSeconds(10)));
        assertThat(admitted(limiter, "c", 3)).isEqualTo(2);
        assertThat(limiter.size()).isEqualTo(1);
        assertThat(limiter.decide("c", null, false).allowed()).as("a peek").isFalse();

        // sliding-window's counts weigh until the end of the next window: up to 20 s.
        advance(Duration.ofSeconds(20));
        assertThat(limiter.decide("c", null, false).allowed()).isTrue();
        take(limiter, "next");

        assertThat(limiter.size()).as("the cleared client was dropped on the next call").isEqualTo(1);
        assertThat(admitted(limiter, "c", 3)).as("the full limit again").isEqualTo(2);
    }

    /**
     * Callers may read the clock in one order and reach the client's state in another: one that read
     * it first can be decided after one that read it later. CI saw the last of such a burst told
     * {@code Retry-After: 61} for a 60 s window: a decision made at an instant before the state's
     * own points past its end. Here every stale read is decided as of the latest instant already
     * decided, exactly as a limiter whose callers read the clock in order decides them.
     */
    @ParameterizedTest
    // concurrency has no local twin: onRedisFailure=local refuses it (ConcurrencyIT).
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
    void aCallerWhoReadTheClockFirstButIsDecidedLastIsDecidedAsOfTheLatestInstant(Algorithm algorithm) {
        Rule rule = rule(algorithm, 3, Duration.ofMinutes(1));
        long start = nanos.get();
        LocalLimiter raced = limiter(rule);
        LocalLimiter inOrder = limiter(rule);
        // Microseconds after start each caller read the clock, in the order they are decided: a take
        // (+), a peek (?); the third admission read the clock before the peek, the denial first of all.
        long[] readAt = {2, 3, 1, 4, 0, 1};
        String[] calls = {"+", "?", "+", "+", "+", "?"};
        List<String> racedAnswers = new ArrayList<>();
        List<String> inOrderAnswers = new ArrayList<>();
        long latest = 0;
        for (int i = 0; i < readAt.length; i++) {
            latest = Math.max(latest, readAt[i]);
            boolean consume = calls[i].equals("+");
            nanos.set(start + readAt[i] * 1000);
            Decision decision = raced.decide("c", null, consume);
            racedAnswers.add(answer(decision));
            assertPromisesNoMoreThanTheWindow(decision, algorithm, rule.window());
            nanos.set(start + latest * 1000);
            inOrderAnswers.add(answer(inOrder.decide("c", null, consume)));
        }
        assertThat(racedAnswers).containsExactlyElementsOf(inOrderAnswers);
        assertThat(racedAnswers.get(4)).startsWith("denied");
    }

    /**
     * Requests of one client in one microsecond (the local clock's unit, and a node decides several
     * in one): sliding-log stamps each admission a microsecond after the last, as its script must, so
     * its state lasts a few microseconds past the window, and its answers say so exactly, as the
     * script's do (at most limit - 1 microseconds past it: 61 s in whole seconds for a 60 s window).
     * The same burst on every algorithm, a larger request's denial included.
     */
    @ParameterizedTest
    // concurrency has no local twin: onRedisFailure=local refuses it (ConcurrencyIT).
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
    void requestsInOneMicrosecondArePromisedNoMoreThanTheWindow(Algorithm algorithm) {
        Rule rule = rule(algorithm, 3, Duration.ofMinutes(1));
        LocalLimiter limiter = limiter(rule);
        advance(Duration.ofSeconds(7));

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            decisions.add(take(limiter, "c"));
        }
        decisions.add(limiter.decide("c", new long[] {2}, true));
        decisions.add(take(limiter, "c"));
        decisions.add(limiter.decide("c", null, false));

        assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, true, false, false, false);
        for (Decision decision : decisions) {
            assertPromisesNoMoreThanTheWindow(decision, algorithm, rule.window());
        }
    }

    private static String answer(Decision decision) {
        return (decision.allowed() ? "allowed" : "denied") + ", remaining " + decision.remaining() + ", retry after "
                + decision.retryAfter() + ", reset after " + decision.resetAfter();
    }

    /**
     * The longest any answer may point ahead is the window: the state of a full window or bucket has
     * cleared by then. sliding-window alone weighs a window's count until the end of the next one;
     * sliding-log's entries stamped a microsecond apart leave up to limit - 1 microseconds after it.
     */
    private static void assertPromisesNoMoreThanTheWindow(Decision decision, Algorithm algorithm, Duration window) {
        Duration horizon = algorithm == Algorithm.SLIDING_WINDOW ? window.multipliedBy(2)
                : algorithm == Algorithm.SLIDING_LOG ? window.plus(Duration.ofNanos(1000L * (decision.limit() - 1)))
                : window;
        long seconds = (horizon.toNanos() + 999_999_999L) / 1_000_000_000L;
        assertThat(decision.retryAfter()).as("retry-after of %s", answer(decision)).isLessThanOrEqualTo(horizon);
        assertThat(decision.resetAfter()).as("reset-after of %s", answer(decision)).isLessThanOrEqualTo(horizon);
        assertThat(decision.retryAfterSeconds()).as("Retry-After of %s", answer(decision)).isLessThanOrEqualTo(seconds);
        assertThat(decision.resetAfterSeconds()).as("t of %s", answer(decision)).isLessThanOrEqualTo(seconds);
    }

    @Test
    void deniesAndPeeksStoreNothing() {
        LocalLimiter limiter = limiter(rule(Algorithm.GCRA, 1, Duration.ofSeconds(1)));
        limiter.decide("peek", null, false);
        limiter.decide("large", new long[] {2}, true);
        assertThat(limiter.size()).isZero();
        assertThat(limiter.holdsState()).isFalse();
    }

    @Test
    void aRequestLargerThanTheLocalCapacityIsDeniedForASecond() {
        LocalLimiter limiter = limiter(rule(Algorithm.SLIDING_LOG, 3, Duration.ofMinutes(1)));
        Decision denied = limiter.decide("c", new long[] {4}, true);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(limiter.decide("c", new long[] {3}, true).allowed()).isTrue();
    }

    @Test
    void theNumberOfClientsStaysBoundedUnderAHundredThousandDistinctKeys() {
        LocalLimiter limiter = limiter(2000, rule(Algorithm.SLIDING_LOG, 5, Duration.ofHours(1)));
        int hotAdmitted = 0;
        for (int i = 0; i < 100_000; i++) {
            assertThat(take(limiter, "hostile-" + i).allowed()).isTrue();
            if (i % 50 == 0) {
                hotAdmitted += take(limiter, "hot").allowed() ? 1 : 0;
            }
            if (i % 1000 == 0) {
                assertThat(limiter.size()).isLessThanOrEqualTo(2000);
            }
        }
        assertThat(limiter.size()).isLessThanOrEqualTo(2000).isGreaterThan(1000);
        assertThat(hotAdmitted).as("a client seen often is never the one evicted: still limited").isEqualTo(5);
    }

    @Test
    void severalRulesAreAllOrNothing() {
        Rule perSecond = Rule.builder(Algorithm.SLIDING_LOG, 2, Duration.ofSeconds(1)).name("second").build();
        Rule perTenSeconds = Rule.builder(Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10)).name("ten").build();
        LocalLimiter limiter = limiter(perSecond, perTenSeconds);

        assertThat(admitted(limiter, "c", 2)).isEqualTo(2);
        Decision byFirst = take(limiter, "c");
        assertThat(byFirst.allowed()).isFalse();
        assertThat(byFirst.rule().name()).isEqualTo("second");
        assertThat(byFirst.retryAfter()).isEqualTo(Duration.ofSeconds(1));

        advance(Duration.ofSeconds(1));
        Decision third = take(limiter, "c");
        assertThat(third.allowed()).as("the denial took nothing from the 10 s rule").isTrue();
        assertThat(third.remaining()).as("the rule with fewest left speaks: both are at 0").isZero();

        advance(Duration.ofSeconds(1));
        Decision bySecond = take(limiter, "c");
        assertThat(bySecond.allowed()).isFalse();
        assertThat(bySecond.rule().name()).isEqualTo("ten");
        assertThat(bySecond.retryAfter()).as("the first request leaves the 10 s window at 10 s")
                .isEqualTo(Duration.ofSeconds(8));
        advance(Duration.ofSeconds(8));
        assertThat(take(limiter, "c").allowed()).isTrue();
    }

    @Test
    void concurrentRequestsOfOneClientAreAdmittedExactlyAtTheLimit() throws Exception {
        LocalLimiter limiter = limiter(rule(Algorithm.TOKEN_BUCKET, 100, Duration.ofHours(1)));
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> counts = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                counts.add(threads.submit(() -> admitted(limiter, "shared", 500)));
            }
            int total = 0;
            for (Future<Integer> count : counts) {
                total += count.get(30, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(100);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void clearForgetsEveryClient() {
        LocalLimiter limiter = limiter(rule(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1)));
        take(limiter, "a");
        take(limiter, "b");
        assertThat(limiter.holdsState()).isTrue();
        limiter.forget("a");
        assertThat(limiter.size()).isEqualTo(1);
        limiter.clear();
        assertThat(limiter.holdsState()).isFalse();
        assertThat(limiter.size()).isZero();
        assertThat(take(limiter, "b").allowed()).isTrue();
    }

    @Test
    void aCalendarRuleCountsPerPeriodLocallyAndPromisesNoMoreThanTheRestOfIt() {
        java.time.Instant beforeMidnight = java.time.Instant.parse("2026-03-28T22:59:30Z"); // 23:59:30 in Berlin
        AtomicLong wall = new AtomicLong(beforeMidnight.toEpochMilli());
        Rule daily = Rule.calendar(100, dev.ratelimit.CalendarPeriod.DAY, java.time.ZoneId.of("Europe/Berlin")).build();
        List<Rule> local = LocalRules.scale(List.of(daily), 2);
        assertThat(local.get(0).calendar()).isEqualTo(dev.ratelimit.CalendarPeriod.DAY);
        assertThat(local.get(0).name()).as("the default name states the local limit").isEqualTo("2/day");
        LocalLimiter limiter = new LocalLimiter(local, 100, nanos::get, wall::get);

        Decision first = take(limiter, "c");
        Decision second = take(limiter, "c");
        Decision denied = take(limiter, "c");

        assertThat(first.allowed()).isTrue();
        assertThat(first.resetAfter()).as("the rest of the day, not a 25-hour window").isEqualTo(Duration.ofSeconds(30));
        assertThat(second.remaining()).isZero();
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(30));

        advance(Duration.ofSeconds(30));
        wall.addAndGet(30_000);
        Decision nextDay = take(limiter, "c");
        assertThat(nextDay.allowed()).as("a new period, a new count").isTrue();
        assertThat(nextDay.remaining()).isEqualTo(1);
        assertThat(nextDay.resetAfter()).as("29 March 2026 in Berlin has 23 hours").isEqualTo(Duration.ofHours(23));
    }
}
