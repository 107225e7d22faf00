package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.resps.Tuple;

/**
 * How many entries a sliding log holds, whatever the traffic: sliding-log.lua's header bounds it by
 * the rule, the anchor and the entries of the window and booked ahead, at most
 * {@code 1 + limit * (1 + ceil(maxDelay / window))}, and every write trims to it: an admission, a
 * delayed admission's reservation ({@code maxDelay}, mode '1D&lt;max_us&gt;', which books entries ahead
 * of now), and an after-charge (refund.lua). The production scripts run at exact instants through
 * their trailing {@code now}; the log is read back after every call.
 *
 * <p>Replies are {state, allowed, remaining, retry_after_us, reset_after_us[, receipt]}: state 1
 * admitted, 0 denied, 4 delayed (then retry_after_us is the wait).
 */
class SlidingLogBoundClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long MS = 1_000L;
    private static final long SECOND = 1_000_000L;
    private static final long DELAYED = 4;
    private static final LuaScript SCRIPT = LuaEvaluator.script(Algorithm.SLIDING_LOG);

    @BeforeAll
    static void loadScript() {
        assertThat(redis.client().scriptLoad(SCRIPT.source())).isEqualTo(SCRIPT.sha1());
    }

    /**
     * limit 5, window 2 s, maxDelay 10 s: waves of 15 requests, each wave once the last request of
     * the one before is served. Each wave after the first finds 5 in the window and books its 15
     * over the next 6 s: 20 live entries. Before every write trimmed, nothing did (none of them is
     * admitted at once, and only admissions trimmed): the log held 15, 30, 45, 60 entries.
     */
    @Test
    void wavesOfDelayedRequestsLeaveTheWindowAndTheirReservationsOnly() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofSeconds(2));
        long maxDelay = 10 * SECOND;
        String key = redis.key("waves");
        List<Long> sizes = new ArrayList<>();
        List<Long> trimmed = new ArrayList<>();
        long now = T0;
        for (int wave = 0; wave < 6; wave++) {
            long lastServed = now;
            for (int request = 0; request < 15; request++) {
                List<Long> reply = run(rule, delaying(maxDelay), now, key);
                assertThat(reply.get(1)).as("wave %d, request %d: admitted or delayed", wave + 1, request + 1)
                        .isEqualTo(1L);
                if (reply.get(0) == DELAYED) {
                    lastServed = Math.max(lastServed, now + reply.get(3));
                }
            }
            Log log = read(key);
            sizes.add(log.size());
            trimmed.add(1 + log.live(now, rule));
            now = lastServed;
        }
        for (int wave = 0; wave < sizes.size(); wave++) {
            assertThat(sizes.get(wave)).as("wave %d: ZCARD after each wave %s, the anchor with the window's and the "
                    + "reserved entries %s", wave + 1, sizes, trimmed).isLessThanOrEqualTo(trimmed.get(wave));
            assertThat(sizes.get(wave)).as("wave %d: within the rule's bound", wave + 1)
                    .isLessThanOrEqualTo(bound(rule, maxDelay));
        }
        assertThat(trimmed.subList(1, trimmed.size())).as("5 in the window and 15 booked ahead, and the anchor")
                .containsOnly(21L);
    }

    static Stream<Arguments> shapedClients() {
        return Stream.of(
                Arguments.of(5, Duration.ofSeconds(2), 10 * SECOND, 1, 100 * MS),
                Arguments.of(3, Duration.ofSeconds(4), 10 * SECOND, 1, 50 * MS),
                Arguments.of(10, Duration.ofSeconds(1), 5 * SECOND, 3, 50 * MS),
                Arguments.of(7, Duration.ofMillis(500), 2 * SECOND, 2, 40 * MS));
    }

    /**
     * A client that asks far more often than its limit lets through, with costs from 1 to maxCost,
     * at instants of a seeded random walk (gaps up to twice meanGap), every call allowed to wait
     * maxDelay: after every call the log holds the anchor and the entries in the window or booked
     * ahead as of the last write (a plain denial writes nothing, so trims nothing), and no more than
     * the rule's bound; the key always has a TTL.
     */
    @ParameterizedTest(name = "limit {0} per {1}, maxDelay {2} us, costs up to {3}")
    @MethodSource("shapedClients")
    void aClientKeptOverItsLimitForTenMinutesHoldsAtMostItsWindowPlusItsReservations(int limit, Duration window,
            long maxDelay, int maxCost, long meanGap) {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, limit, window);
        String key = redis.key("shaped-" + limit + "-" + window.toMillis() + "-" + maxCost);
        long bound = bound(rule, maxDelay);
        Random random = new Random(limit * 31L + maxCost);
        long now = T0;
        long delayed = 0;
        long largest = 0;
        long written = now;
        for (long end = T0 + 10 * 60 * SECOND; now < end; now += 1 + random.nextInt((int) (2 * meanGap))) {
            Step step = runAndRead(rule, delaying(maxDelay), now, key, 1 + random.nextInt(maxCost));
            if (step.reply().get(0) == DELAYED) {
                delayed++;
            }
            if (step.reply().get(1) == 1L) {
                written = now;
            }
            long size = step.log().size();
            largest = Math.max(largest, size);
            long at = now;
            assertThat(size).as("+%d us: the log against the rule's bound %d", at - T0, bound)
                    .isLessThanOrEqualTo(bound);
            assertThat(size).as("+%d us: the anchor, the window's and the booked entries of the last write", at - T0)
                    .isLessThanOrEqualTo(1 + step.log().live(written, rule));
            assertThat(step.log().pttl()).as("+%d us: a TTL", at - T0).isPositive();
        }
        long windows = (now - T0) / (window.toNanos() / 1000);
        assertThat(delayed).as("the client was over its limit, its requests booked ahead")
                .isGreaterThan(windows * limit / (2L * maxCost));
        assertThat(largest).as("the log held more than a window: requests booked ahead").isGreaterThan(limit);
        if (maxCost == 1) {
            assertThat(largest).as("single permits reach the bound: it is the worst case, not a margin")
                    .isEqualTo(bound);
        }
    }

    /**
     * The bound's worst case, exact: the window full (5 admissions in its last microseconds) with
     * the anchor before it, and maxDelay (10 s = 5 windows) booked whole, 5 per window: 1 + 5 + 25
     * entries, 1 + limit * (1 + ceil(maxDelay / window)). The next request's turn is past maxDelay:
     * a plain denial, writing nothing.
     */
    @Test
    void theWorstCaseIsTheAnchorAFullWindowAndMaxDelayBookedWhole() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofSeconds(2));
        long maxDelay = 10 * SECOND;
        String key = redis.key("worst");
        assertThat(run(rule, "1", T0 - 2 * SECOND, key).get(0)).isEqualTo(1L);
        for (long at = T0 - 4; at < T0; at++) {
            assertThat(run(rule, "1", at, key).get(0)).isEqualTo(1L);
        }
        assertThat(run(rule, "1", T0, key).subList(0, 3)).as("the first entry has left: the fifth")
                .containsExactly(1L, 1L, 0L);
        long wait = 0;
        for (int booked = 0; booked < 25; booked++) {
            List<Long> reply = run(rule, delaying(maxDelay), T0, key);
            assertThat(reply.get(0)).as("reservation %d", booked + 1).isEqualTo(DELAYED);
            wait = reply.get(3);
        }
        assertThat(wait).as("the last one booked at maxDelay").isEqualTo(maxDelay);
        assertThat(redis.client().zcard(key)).isEqualTo(31).isEqualTo(bound(rule, maxDelay));
        byte[] before = redis.client().dump(key);
        assertThat(run(rule, delaying(maxDelay), T0, key).get(0)).as("past maxDelay").isZero();
        assertThat(redis.client().dump(key)).as("a denial writes nothing").isEqualTo(before);
    }

    /**
     * chargeAfter with maxDelay, five minutes: a client asking ten times a second, 5 per 2 s, each
     * request it gets waits for its turn, runs 50 ms and is then charged 1 permit more
     * (RateLimiter.charge, refund.lua). A charge is an entry past the limit, stamped after the
     * booked ones, and it trims what has left the window as every write does: the log holds the
     * rule's bound and at most one entry per charge made within the last window and maxDelay. A
     * charge that did not trim left entries older than the anchor behind it.
     */
    @Test
    void chargesOfDelayedRequestsKeepTheLogBoundedToo() {
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 5, Duration.ofSeconds(2));
        long maxDelay = 10 * SECOND;
        long window = 2 * SECOND;
        FrozenClockScript charges = new FrozenClockScript(redis.client(), rule);
        String key = redis.key("charged");
        long bound = bound(rule, maxDelay);
        PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        List<List<Long>> receipts = new ArrayList<>();
        Deque<Long> charged = new ArrayDeque<>();
        long nextRequest = T0;
        long end = T0 + 5 * 60 * SECOND;
        long written = T0;
        while (nextRequest < end) {
            long now;
            if (!due.isEmpty() && due.peek()[0] <= nextRequest) {
                long[] charge = due.poll();
                now = charge[0];
                assertThat(charges.charge(now, 1, receipts.get((int) charge[1]), key)).containsExactly(1L);
                charged.addLast(now);
                written = now;
            } else {
                now = nextRequest;
                nextRequest += 100 * MS;
                List<Long> reply = run(rule, delaying(maxDelay), now, key);
                if (reply.get(1) == 1L) {
                    written = now;
                    long served = reply.get(0) == DELAYED ? now + reply.get(3) : now;
                    receipts.add(reply);
                    due.add(new long[] {served + 50 * MS, receipts.size() - 1});
                }
            }
            while (!charged.isEmpty() && charged.peekFirst() <= now - window - maxDelay - MS) {
                charged.removeFirst();
            }
            Log log = read(key);
            long size = log.size();
            long at = now;
            assertThat(size).as("+%d us: the anchor, the window's and the booked entries of the last write", at - T0)
                    .isLessThanOrEqualTo(1 + log.live(written, rule));
            assertThat(size).as("+%d us: the rule's bound %d and %d charges of the last window and maxDelay", at - T0,
                    bound, charged.size()).isLessThanOrEqualTo(bound + charged.size());
            assertThat(log.pttl()).as("+%d us: a TTL", at - T0).isPositive();
        }
        assertThat(receipts.size()).as("requests served, each charged").isGreaterThan(300);
    }

    /**
     * limit 2^50 (Rule.MAX_LIMIT), window 1 s, maxDelay 3 s, every request the whole limit: one
     * booked a second, each 3 s ahead. The running totals pass 2^52 after four entries; the
     * reservation that trims to the anchor rebases them as an admission's commit does, so the
     * totals stay exact doubles and the client keeps getting its turn, not a denial.
     */
    @Test
    void reservationsAtTheLargestLimitRebaseTheLogBeforeItsTotalsLosePrecision() {
        long limit = Rule.MAX_LIMIT;
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, limit, Duration.ofSeconds(1));
        long maxDelay = 3 * SECOND;
        String key = redis.key("rebased");
        assertThat(run(rule, "1", T0, key, limit).subList(0, 3)).containsExactly(1L, 1L, 0L);
        for (int ahead = 1; ahead <= 3; ahead++) {
            assertThat(run(rule, delaying(maxDelay), T0, key, limit).subList(0, 4)).as("booked %d s ahead", ahead)
                    .containsExactly(DELAYED, 1L, 0L, ahead * SECOND);
        }
        for (int second = 1; second <= 12; second++) {
            long now = T0 + second * SECOND;
            assertThat(run(rule, delaying(maxDelay), now, key, limit).subList(0, 4))
                    .as("second %d: its turn 3 s on", second)
                    .containsExactly(DELAYED, 1L, 0L, 3 * SECOND);
            assertThat(run(rule, "0", now + 999_999, key, 1).subList(0, 4))
                    .as("second %d: this turn and the 3 booked, 4 times the limit: room once the last leaves", second)
                    .containsExactly(0L, 0L, 0L, 3 * SECOND + 1);
            for (Tuple entry : redis.client().zrangeWithScores(key, 0, -1)) {
                assertThat(Long.parseLong(entry.getElement())).as("second %d: an exact double", second)
                        .isLessThanOrEqualTo((1L << 52) + limit);
            }
            assertThat(redis.client().zcard(key)).as("the anchor at most, this second's turn and 3 booked")
                    .isLessThanOrEqualTo(5);
        }
        assertThat(run(rule, "1", T0 + 16 * SECOND, key, limit).subList(0, 3))
                .as("after the last turn, the whole limit")
                .containsExactly(1L, 1L, 0L);
    }

    /**
     * The same rule with maxDelay 10 s: a fifth entry of 2^50 would pass 2^52, and at T0 no entry has
     * left the window, so no anchor to rebase by: the request is denied (its turn within maxDelay
     * notwithstanding), writing nothing. A second on, the first entry is the anchor and the turn
     * is booked.
     */
    @Test
    void aReservationNoRebaseBringsBelowTwoToThe52IsADenialThatWritesNothing() {
        long limit = Rule.MAX_LIMIT;
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, limit, Duration.ofSeconds(1));
        long maxDelay = 10 * SECOND;
        String key = redis.key("unrebased");
        run(rule, "1", T0, key, limit);
        for (int ahead = 1; ahead <= 3; ahead++) {
            assertThat(run(rule, delaying(maxDelay), T0, key, limit).get(0)).isEqualTo(DELAYED);
        }
        byte[] before = redis.client().dump(key);
        assertThat(run(rule, delaying(maxDelay), T0, key, limit).subList(0, 4)).as("totals would reach 5 x 2^50")
                .containsExactly(0L, 0L, 0L, 4 * SECOND);
        assertThat(redis.client().dump(key)).as("a denial writes nothing").isEqualTo(before);
        assertThat(run(rule, delaying(maxDelay), T0 + SECOND, key, limit).subList(0, 4)).as("rebased by the anchor")
                .containsExactly(DELAYED, 1L, 0L, 3 * SECOND);
    }

    /** 1 + limit * (1 + ceil(maxDelay / window)): sliding-log.lua's bound, for costs of 1. */
    private static long bound(Rule rule, long maxDelay) {
        long window = rule.window().toNanos() / 1000;
        return 1 + rule.limit() * (1 + (maxDelay + window - 1) / window);
    }

    private static String delaying(long maxMicros) {
        return "1D" + maxMicros;
    }

    /**
     * The log as read after a call: its entries' scores and the key's PTTL. The loops read it after
     * each of some 50,000 calls, so it comes in the call's own round trip ({@link #runAndRead}) or in
     * one of its own ({@link #read}), not one per command.
     */
    private record Log(List<Double> scores, long pttl) {
        long size() {
            return scores.size();
        }

        /** The entries still in the window at {@code now} or booked ahead of it (ZCOUNT's "(now - window" to +inf). */
        long live(long now, Rule rule) {
            double from = now - rule.window().toNanos() / 1000;
            return scores.stream().filter(score -> score > from).count();
        }
    }

    /** A call's reply and the log right after it. */
    private record Step(List<Long> reply, Log log) {
    }

    private static Log read(String key) {
        try (AbstractPipeline pipeline = redis.client().pipelined()) {
            Supplier<Log> log = queueRead(pipeline, key);
            pipeline.sync();
            return log.get();
        }
    }

    /** {@link #run} and {@link #read} in one round trip: Redis runs the reads right after the script. */
    @SuppressWarnings("unchecked")
    private static Step runAndRead(Rule rule, String mode, long now, String key, long permits) {
        try (AbstractPipeline pipeline = redis.client().pipelined()) {
            Response<Object> reply = pipeline.evalsha(SCRIPT.sha1(), Collections.singletonList(key),
                    arguments(rule, mode, now, permits));
            Supplier<Log> log = queueRead(pipeline, key);
            pipeline.sync();
            return new Step((List<Long>) reply.get(), log.get());
        }
    }

    /** Queues the reads of the log on {@code pipeline}; the log, once it has synced. */
    private static Supplier<Log> queueRead(AbstractPipeline pipeline, String key) {
        Response<List<Tuple>> entries = pipeline.zrangeWithScores(key, 0, -1);
        Response<Long> pttl = pipeline.pttl(key);
        return () -> new Log(entries.get().stream().map(Tuple::getScore).collect(Collectors.toList()), pttl.get());
    }

    private static List<Long> run(Rule rule, String mode, long now, String key) {
        return run(rule, mode, now, key, 1);
    }

    private static List<Long> run(Rule rule, String mode, long now, String key, long permits) {
        @SuppressWarnings("unchecked")
        List<Long> reply = (List<Long>) redis.client().evalsha(SCRIPT.sha1(), Collections.singletonList(key),
                arguments(rule, mode, now, permits));
        return reply;
    }

    private static List<String> arguments(Rule rule, String mode, long now, long permits) {
        List<String> args = new ArrayList<>();
        args.add(mode);
        args.add(Long.toString(permits));
        args.addAll(rule.algorithm().scriptArguments(rule));
        args.add(Long.toString(now));
        return args;
    }
}
