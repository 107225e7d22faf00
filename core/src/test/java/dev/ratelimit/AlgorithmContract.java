package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.redis.NodeGateway;
import dev.ratelimit.internal.redis.StoreAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The contract every algorithm keeps, against a real Redis: written once, run for each algorithm
 * (and, where it applies, each transport), by a subclass per Redis topology.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AlgorithmContract {
    RedisStore nodeA;
    RedisStore nodeB;
    final AtomicInteger policies = new AtomicInteger();

    /** How to reach the topology under test; each call must make a store of its own. */
    abstract RedisSettings settings();

    /** A prefix under which this class alone writes. */
    abstract String keyPrefix();

    /** A client for looking at keys (DUMP, PTTL, EXISTS). */
    abstract UnifiedJedis admin();

    /** Every key under {@link #keyPrefix()}, on every node. */
    abstract List<String> allKeys();

    /** SCRIPT FLUSH on every node. */
    abstract void flushScripts();

    /** The transports the topology supports. */
    List<Transport> transports() {
        return List.of(Transport.LUA, Transport.TRANSACTION);
    }

    @BeforeAll
    void connect() {
        // Two stores with their own pools: two application nodes sharing one Redis.
        nodeA = RedisStore.connect(settings());
        nodeB = RedisStore.connect(settings());
    }

    @AfterAll
    void everyKeyWrittenHasATtl() {
        try {
            List<String> keys = allKeys();
            assertThat(keys).as("keys written by this class").isNotEmpty();
            for (String key : keys) {
                assertThat(admin().pttl(key)).as("PTTL of %s (-1 means it would never expire)", key)
                        .isNotEqualTo(-1L);
                assertThat(key.length()).as("length of %s", key).isLessThanOrEqualTo(MAX_KEY_LENGTH);
            }
        } finally {
            nodeA.close();
            nodeB.close();
        }
    }

    /** Prefix and policy (64 each), ":{", a client part of at most 128, "}", ":" and a rule name (64). */
    private static final int MAX_KEY_LENGTH = 64 + 64 + 2 + 128 + 1 + 1 + 64;

    Stream<Arguments> algorithmsAndTransports() {
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            cases.add(Arguments.of(algorithm, Transport.LUA));
        }
        if (transports().contains(Transport.TRANSACTION)) {
            for (Algorithm algorithm : Algorithm.values()) {
                if (algorithm.runsAsTransaction()) {
                    cases.add(Arguments.of(algorithm, Transport.TRANSACTION));
                }
            }
        }
        return cases.stream();
    }

    /**
     * The cases about rates, retries and permits, without {@code concurrency}: it limits requests in
     * flight with one lease each (no permits above 1, no several rules: both refused at build, see
     * {@link #concurrencyHoldsOneLeasePerRequestUntilReleased}) and its retry-after is at least a
     * second whatever its window (leases are usually released long before they expire). Its own
     * cases below run on every topology instead.
     */
    Stream<Arguments> rateAlgorithmsAndTransports() {
        return algorithmsAndTransports().filter(arguments -> !((Algorithm) arguments.get()[0]).holdsLeases());
    }

    RateLimiter limiter(RedisStore store, String policy, Transport transport, Rule... rules) {
        // No local deny cache: these tests are about what the scripts do in Redis.
        return RateLimiter.builder(store).keyPrefix(keyPrefix()).policyName(policy).transport(transport)
                .localDenyCache(false).rules(List.of(rules)).build();
    }

    private RateLimiter limiter(RedisStore store, String policy, Rule... rules) {
        return limiter(store, policy, Transport.LUA, rules);
    }

    private String newPolicy(Algorithm algorithm) {
        return algorithm.configName() + "-" + policies.incrementAndGet();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("algorithmsAndTransports")
    void twoNodesAndManyThreadsAdmitExactlyTheLimit(Algorithm algorithm, Transport transport) throws Exception {
        // A window of an hour: the buckets refill less than one permit while the test runs.
        Rule rule = Rule.of(algorithm, 50, Duration.ofHours(1));
        String policy = newPolicy(algorithm);
        RateLimiter onA = limiter(nodeA, policy, transport, rule);
        RateLimiter onB = limiter(nodeB, policy, transport, rule);

        int admitted = hammer(400, 32, i -> (i % 2 == 0 ? onA : onB).tryAcquire("client").allowed());

        if (algorithm.isExact()) {
            assertThat(admitted).isEqualTo(50);
        } else {
            // Documented bound of sliding-window: exactly the limit within one window, at most
            // twice the limit in any window-long interval.
            assertThat(admitted).isBetween(50, 100);
        }
        assertThat(onA.peek("client").allowed()).isFalse();
    }

    /**
     * Coalescing (on by default): decisions of many threads on many keys travel together, joined
     * into batch script calls where they can, and every client still gets exactly its limit.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
    void decisionsThatTravelTogetherStayExact(Algorithm algorithm) throws Exception {
        Rule rule = Rule.of(algorithm, 40, Duration.ofHours(1));
        String policy = newPolicy(algorithm);
        RateLimiter onA = limiter(nodeA, policy, Transport.LUA, rule);
        RateLimiter onB = limiter(nodeB, policy, Transport.LUA, rule);
        long coalescedBefore = coalescedCalls();

        int admitted = hammer(2000, 32, i -> (i % 2 == 0 ? onA : onB).tryAcquire("client-" + i % 10).allowed());

        assertThat(admitted).isEqualTo(400);
        for (int client = 0; client < 10; client++) {
            assertThat(onA.peek("client-" + client).allowed()).isFalse();
        }
        assertThat(coalescedCalls() - coalescedBefore).as("calls that travelled with others").isPositive();
    }

    private long coalescedCalls() {
        return ((NodeGateway) StoreAccess.gateway(nodeA)).coalescedCalls()
                + ((NodeGateway) StoreAccess.gateway(nodeB)).coalescedCalls();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void deniedAttemptsChangeNothingInRedis(Algorithm algorithm) throws Exception {
        Rule rule = Rule.of(algorithm, 5, Duration.ofSeconds(2));
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), rule);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("c").allowed()).isTrue();
        }
        String key = limiter.redisKeys("c").get(0);
        byte[] before = admin().dump(key);
        Decision first = limiter.tryAcquire("c");
        long start = System.nanoTime();
        assertThat(first.allowed()).isFalse();

        int denied = 1;
        while (denied < 1000 && System.nanoTime() - start < first.retryAfter().toNanos() / 2) {
            assertThat(limiter.tryAcquire("c").allowed()).isFalse();
            denied++;
        }

        assertThat(admin().dump(key)).as("the state after %d denials", denied).isEqualTo(before);
        sleepUntil(start, first.retryAfter());
        assertThat(limiter.tryAcquire("c").allowed()).as("admitted once the first denial's retry-after passed")
                .isTrue();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("rateAlgorithmsAndTransports")
    void aRetryAtRetryAfterIsAdmittedAndOneClearlyBeforeIsDenied(Algorithm algorithm, Transport transport)
            throws Exception {
        Rule rule = Rule.of(algorithm, 5, Duration.ofMillis(500));
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), transport, rule);
        long first = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("c").allowed()).isTrue();
        }
        Decision denial = limiter.tryAcquire("c");
        for (int extra = 1; denial.allowed(); extra++) {
            // Only a permit given back while the calls travelled admits more than the limit.
            assertThat((long) extra).as("admitted past the limit within %d ms", millisSince(first))
                    .isLessThanOrEqualTo(regainable(rule, first));
            denial = limiter.tryAcquire("c");
        }
        // Measured after the answer arrives, never before Redis computed it.
        long start = System.nanoTime();
        // sliding-window's windows are aligned to the epoch: a full current window is only weighed
        // down enough some way into the next one.
        Duration longest = algorithm.isExact() ? Duration.ofMillis(502) : Duration.ofMillis(1000);
        assertThat(denial.retryAfter()).isPositive().isLessThanOrEqualTo(longest);
        assertThat(denial.retryAfterSeconds()).isEqualTo(1);

        boolean admittedLate = false;
        if (transport == Transport.LUA) {
            // (A transaction counts denials, so it cannot ask "before" without denying again.)
            sleepUntil(start, denial.retryAfter().dividedBy(3));
            boolean allowed = limiter.tryAcquire("c").allowed();
            // The answer came back before retry-after had passed since the denial was answered, so Redis
            // decided it earlier still: it must deny. (A machine that stalled past retry-after on the way
            // proves nothing either way; the assertion at retry-after below still runs.)
            if (System.nanoTime() - start < denial.retryAfter().toNanos()) {
                assertThat(allowed).as("a third of the way to retry-after").isFalse();
            }
            // Admitted, it came past retry-after and took the permit retry-after promised: asking
            // again would find it gone. That admission is the one at retry-after.
            admittedLate = allowed;
        }
        if (!admittedLate) {
            sleepUntil(start, denial.retryAfter());
            assertThat(limiter.tryAcquire("c").allowed()).as("at retry-after").isTrue();
        }
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("algorithmsAndTransports")
    void afterTheResetTheFullLimitIsAvailableAgain(Algorithm algorithm, Transport transport) throws Exception {
        // 500 ms: the buckets refill a permit every 100 ms, more than six requests take on a machine
        // that is not stalled; what they refill while it is, regainable() allows for.
        Rule rule = Rule.of(algorithm, 5, Duration.ofMillis(500));
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), transport, rule);
        Decision last = null;
        long first = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            last = limiter.tryAcquire("c");
            assertThat(last.allowed()).isTrue();
            // Exactly 4 - i, plus what the rule can have given back since the first call was sent.
            assertThat(last.remaining()).isBetween(4L - i, 4L - i + regainable(rule, first));
        }
        assertThat(last.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(1001));

        Decision denied = limiter.tryAcquire("c");
        long start = System.nanoTime();
        if (denied.allowed()) {
            assertThat(regainable(rule, first)).as("the sixth admitted within %d ms", millisSince(first)).isPositive();
        }
        sleepUntil(start, denied.resetAfter());

        long reset = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("c").allowed()).as("request %d after the reset", i + 1).isTrue();
        }
        if (limiter.tryAcquire("c").allowed()) {
            assertThat(regainable(rule, reset)).as("one more than the limit admitted within %d ms", millisSince(reset))
                    .isPositive();
        }
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("rateAlgorithmsAndTransports")
    void permitsAreTakenTogether(Algorithm algorithm, Transport transport) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), transport, Rule.of(algorithm, 10, Duration.ofHours(1)));

        Decision four = limiter.tryAcquire("c", 4);
        assertThat(four.allowed()).isTrue();
        assertThat(four.remaining()).isEqualTo(6);
        assertThat(limiter.tryAcquire("c", 6).remaining()).isZero();
        Decision tooMany = limiter.tryAcquire("c", 1);
        assertThat(tooMany.allowed()).isFalse();
        assertThat(tooMany.remaining()).isZero();
        assertThatThrownBy(() -> limiter.tryAcquire("c", 11)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be between 1 and 10 (the capacity of rule 10/1h), but was 11");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // see rateAlgorithmsAndTransports
    void largePermitsAreDeniedWithoutTakingSmallerOnes(Algorithm algorithm) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), Rule.of(algorithm, 10, Duration.ofHours(1)));
        assertThat(limiter.tryAcquire("c", 7).allowed()).isTrue();
        assertThat(limiter.tryAcquire("c", 4).allowed()).as("7 + 4 > 10").isFalse();
        Decision three = limiter.tryAcquire("c", 3);
        assertThat(three.allowed()).as("the denied 4 took nothing").isTrue();
        assertThat(three.remaining()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // see rateAlgorithmsAndTransports
    void severalRulesAreAllOrNothing(Algorithm algorithm) {
        Rule tight = Rule.builder(algorithm, 3, Duration.ofHours(1)).name("tight").build();
        Rule loose = Rule.builder(algorithm, 5, Duration.ofHours(2)).name("loose").build();
        String policy = newPolicy(algorithm);
        RateLimiter both = limiter(nodeA, policy, tight, loose);

        for (int i = 0; i < 3; i++) {
            Decision allowed = both.tryAcquire("c");
            assertThat(allowed.allowed()).isTrue();
            assertThat(allowed.rule()).as("the rule with the fewest left speaks").isEqualTo(tight);
        }
        for (int i = 0; i < 10; i++) {
            Decision denied = both.tryAcquire("c");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.rule()).isEqualTo(tight);
        }

        // The same policy and the same "loose" rule beside another: "loose" lost only the 3
        // admitted permits, nothing to the 10 denials.
        Rule other = Rule.builder(algorithm, 100, Duration.ofHours(1)).name("other").build();
        RateLimiter looseAgain = limiter(nodeB, policy, loose, other);
        assertThat(looseAgain.redisKeys("c")).contains(both.redisKeys("c").get(1));
        assertThat(looseAgain.tryAcquire("c").remaining()).isEqualTo(1);
        assertThat(looseAgain.tryAcquire("c").remaining()).isZero();
        Decision deniedByLoose = looseAgain.tryAcquire("c");
        assertThat(deniedByLoose.allowed()).isFalse();
        assertThat(deniedByLoose.rule()).isEqualTo(loose);
        assertThat(admin().exists(looseAgain.redisKeys("c").get(1)))
                .as("a rule that allowed wrote nothing when another denied").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void hugeAndStrangeClientKeysAreStoredAsShortDigests(Algorithm algorithm) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), Rule.of(algorithm, 2, Duration.ofMinutes(1)));
        String huge = "k".repeat(10_000);
        String strange = "tab\there\u0000nul\u00e9\u4e2d\u0007\r\n";

        assertThat(limiter.tryAcquire(huge).allowed()).isTrue();
        assertThat(limiter.tryAcquire(strange).allowed()).isTrue();
        assertThat(limiter.tryAcquire(huge).remaining()).as("the digest is stable").isZero();
        assertThat(limiter.tryAcquire(strange).remaining()).isZero();
        assertThat(limiter.tryAcquire("k".repeat(9_999)).remaining()).as("a different key, another bucket")
                .isEqualTo(1);

        for (String client : List.of(huge, strange)) {
            String key = limiter.redisKeys(client).get(0);
            assertThat(key).matches(".*:\\{#[A-Za-z0-9_-]{43}\\}").hasSizeLessThan(200);
            assertThat(admin().exists(key)).isTrue();
            assertThat(admin().pttl(key)).isPositive();
        }
    }


    /**
     * A batch of 100 keys with mixed permits, five times over (so most keys end denied): each key's
     * decision, allowed, remaining and governing rule, is the one single calls give a twin key.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // batches take no leases
    void aBatchDecidesEachKeyAsSingleCallsWould(Algorithm algorithm) {
        Rule rule = Rule.of(algorithm, 10, Duration.ofHours(1));
        RateLimiter batched = limiter(nodeA, newPolicy(algorithm), rule);
        RateLimiter single = limiter(nodeB, newPolicy(algorithm), rule);
        Map<String, Long> batch = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            batch.put("client-" + i, 1L + i % 4);
        }
        int denied = 0;
        for (int round = 0; round < 5; round++) {
            Map<String, Decision> decisions = batched.tryAcquireAll(batch);
            assertThat(decisions.keySet()).containsExactlyElementsOf(batch.keySet());
            for (Map.Entry<String, Long> entry : batch.entrySet()) {
                Decision alone = single.tryAcquire(entry.getKey(), entry.getValue());
                Decision inBatch = decisions.get(entry.getKey());
                assertThat(inBatch.degraded()).isFalse();
                assertThat(List.of(inBatch.allowed(), inBatch.remaining(), inBatch.rule().name()))
                        .as("round %d, %s with %d permits", round, entry.getKey(), entry.getValue())
                        .isEqualTo(List.of(alone.allowed(), alone.remaining(), alone.rule().name()));
                denied += inBatch.allowed() ? 0 : 1;
            }
        }
        assertThat(denied).as("denials among 500 decisions").isGreaterThan(100);
    }

    /**
     * Two limiters (two application nodes) and 16 threads send batches of overlapping keys: each key
     * admits exactly its limit, as single calls do.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // batches take no leases
    void twoNodesAndManyThreadsBatchingOverlappingKeysAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
        Rule rule = Rule.of(algorithm, 20, Duration.ofHours(1));
        String policy = newPolicy(algorithm);
        RateLimiter onA = limiter(nodeA, policy, Transport.LUA, rule);
        RateLimiter onB = limiter(nodeB, policy, Transport.LUA, rule);
        int keys = 8;
        AtomicIntegerArray admitted = new AtomicIntegerArray(keys);
        // 320 batches of 4 keys each: 160 attempts per key, eight times its limit.
        hammer(320, 16, i -> {
            List<String> batch = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                batch.add("client-" + (i + k) % keys);
            }
            List<Decision> decisions = (i % 2 == 0 ? onA : onB).tryAcquireAll(batch);
            for (int k = 0; k < 4; k++) {
                assertThat(decisions.get(k).degraded()).isFalse();
                if (decisions.get(k).allowed()) {
                    admitted.incrementAndGet((i + k) % keys);
                }
            }
            return true;
        });
        for (int k = 0; k < keys; k++) {
            if (algorithm.isExact()) {
                assertThat(admitted.get(k)).as("admitted for client-%d", k).isEqualTo(20);
            } else {
                assertThat(admitted.get(k)).as("admitted for client-%d", k).isBetween(20, 40);
            }
        }
    }

    @Test
    void aBatchRefusesConcurrencyWhoseLeasesBelongToOneRequestEach() {
        RateLimiter limiter = limiter(nodeA, newPolicy(Algorithm.CONCURRENCY), Rule.of(Algorithm.CONCURRENCY, 2,
                Duration.ofHours(1)));
        assertThatThrownBy(() -> limiter.tryAcquireAll(List.of("a", "b")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("batches take no leases");
        assertThat(limiter.peek("a").remaining()).as("nothing taken").isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // batches take no leases
    void scriptFlushBetweenTwoBatchesIsHealed(Algorithm algorithm) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), Rule.of(algorithm, 3, Duration.ofMinutes(1)));
        List<String> keys = List.of("a", "b", "c", "d", "e", "f");
        assertThat(limiter.tryAcquireAll(keys)).extracting(Decision::remaining).containsOnly(2L);

        flushScripts();

        assertThat(limiter.tryAcquireAll(keys)).extracting(Decision::remaining).containsOnly(1L);
        assertThat(limiter.tryAcquireAll(keys)).extracting(Decision::remaining).containsOnly(0L);
        assertThat(limiter.tryAcquireAll(keys)).extracting(Decision::allowed).containsOnly(false);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void scriptFlushBetweenTwoCallsIsHealed(Algorithm algorithm) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), Rule.of(algorithm, 3, Duration.ofMinutes(1)));
        assertThat(limiter.tryAcquire("c").remaining()).isEqualTo(2);

        flushScripts();

        assertThat(limiter.tryAcquire("c").remaining()).isEqualTo(1);
        assertThat(limiter.tryAcquire("c").remaining()).isZero();
        assertThat(limiter.tryAcquire("c").allowed()).isFalse();
    }

    Stream<Arguments> algorithmSwitches() {
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm from : Algorithm.values()) {
            for (Algorithm to : Algorithm.values()) {
                if (from != to) {
                    cases.add(Arguments.of(from, to));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} then {1}")
    @MethodSource("algorithmSwitches")
    void switchingAPolicysAlgorithmInPlaceStartsEachClientAfresh(Algorithm from, Algorithm to) {
        String policy = "switch-" + policies.incrementAndGet();
        RateLimiter before = limiter(nodeA, policy, Rule.of(from, 5, Duration.ofHours(1)));
        useUp(before);

        // A redeploy with another algorithm under the same policy name, as a web.xml edit makes it.
        RateLimiter after = limiter(nodeB, policy, Rule.of(to, 5, Duration.ofHours(1)));
        assertStartsAfresh(after, to);
    }

    /** Takes a limit of 5 and checks the sixth is denied. */
    static void useUp(RateLimiter limiter) {
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("c");
        }
        assertThat(limiter.tryAcquire("c").allowed()).as("the old algorithm's limit is used up").isFalse();
    }

    /** After a switch in place: no error, no state, then exactly the new limit of 5, on a key with a TTL. */
    void assertStartsAfresh(RateLimiter after, Algorithm to) {
        Decision peeked = after.peek("c");
        assertThat(peeked.degraded()).as("the old state is no error").isFalse();
        assertThat(peeked.remaining()).as("and no state: a fresh start").isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            Decision decision = after.tryAcquire("c");
            assertThat(decision.degraded()).isFalse();
            assertThat(decision.allowed()).as("admission %d under %s", i + 1, to).isTrue();
            assertThat(decision.remaining()).isEqualTo(4 - i);
        }
        Decision denied = after.tryAcquire("c");
        assertThat(denied.degraded()).isFalse();
        assertThat(denied.allowed()).as("the new algorithm limits exactly").isFalse();
        assertThat(denied.retryAfter()).isPositive();
        assertThat(admin().pttl(after.redisKeys("c").get(0))).as("the replaced key has a TTL").isPositive();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("algorithmsAndTransports")
    void peekTakesNothingAndResetForgets(Algorithm algorithm, Transport transport) {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), transport, Rule.of(algorithm, 3, Duration.ofMinutes(1)));
        assertThat(limiter.peek("c").remaining()).isEqualTo(3);
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");
        Decision peeked = limiter.peek("c");
        assertThat(peeked.allowed()).isTrue();
        assertThat(peeked.remaining()).isEqualTo(1);
        assertThat(limiter.peek("c").remaining()).as("peeking twice takes nothing").isEqualTo(1);
        limiter.tryAcquire("c");
        assertThat(limiter.peek("c").allowed()).isFalse();

        limiter.reset("c");

        assertThat(admin().exists(limiter.redisKeys("c").get(0))).isFalse();
        assertThat(limiter.tryAcquire("c").remaining()).isEqualTo(2);
    }

    @org.junit.jupiter.api.Test
    void concurrencyHoldsOneLeasePerRequestUntilReleased() {
        Rule rule = Rule.of(Algorithm.CONCURRENCY, 2, Duration.ofHours(1));
        String policy = newPolicy(Algorithm.CONCURRENCY);
        RateLimiter onA = limiter(nodeA, policy, Transport.LUA, rule);
        RateLimiter onB = limiter(nodeB, policy, Transport.LUA, rule);
        String key = onA.redisKeys("c").get(0);

        Decision first = onA.tryAcquire("c");
        Decision second = onB.tryAcquire("c");
        assertThat(first.holdsLease()).isTrue();
        assertThat(second.remaining()).as("limit - in flight").isZero();
        Decision denied = onA.tryAcquire("c");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.holdsLease()).isFalse();
        assertThat(denied.retryAfter()).as("until the earliest lease expires")
                .isGreaterThan(Duration.ofMinutes(59)).isLessThanOrEqualTo(Duration.ofHours(1));
        assertThat(admin().zcard(key)).as("two leases, the denial wrote nothing").isEqualTo(2L);

        onA.release(denied);
        onB.release(first);
        assertThat(admin().zcard(key)).as("released on the other node: the lease names its keys").isEqualTo(1L);
        Decision third = onA.tryAcquire("c");
        assertThat(third.allowed()).as("the released place, at once").isTrue();
        onA.release(first);
        assertThat(onB.tryAcquire("c").allowed()).as("a second release freed nothing more").isFalse();

        onA.release(second);
        onA.release(third);
        assertThat(admin().exists(key)).as("no lease left, no key left").isFalse();
        assertThat(onA.tryAcquire("other").holdsLease()).isTrue(); // left held: its key must have a TTL
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void acquireWaitsForRetryAfterAndGivesUpPastMaxWait(Algorithm algorithm) throws Exception {
        RateLimiter limiter = limiter(nodeA, newPolicy(algorithm), Rule.of(algorithm, 2, Duration.ofMillis(400)));
        limiter.tryAcquire("c");
        limiter.tryAcquire("c");

        Decision gaveUp = limiter.acquire("c", 1, Duration.ofMillis(1));
        assertThat(gaveUp.allowed()).as("retry-after is far beyond 1ms: no point in waiting").isFalse();

        Decision waited = limiter.acquire("c", 1, Duration.ofSeconds(5));
        assertThat(waited.allowed()).isTrue();
    }

    static Stream<Algorithm> leasingAlgorithms() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET, Algorithm.GCRA);
    }

    private RateLimiter leasing(RedisStore store, String policy, Rule rule, RateLimitListener listener,
            java.util.function.LongSupplier nanoClock) {
        RateLimiterBuilder builder = RateLimiter.builder(store).keyPrefix(keyPrefix()).policyName(policy)
                .localDenyCache(false).leases(true).rule(rule).clock(nanoClock);
        return (listener == null ? builder : builder.listener(listener)).build();
    }

    /** Round trips to Redis for decisions, counted by the listener that hears their latency. */
    static final class RoundTrips implements RateLimitListener {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void onRedisLatency(String policyName, long nanos) {
            count.incrementAndGet();
        }
    }

    /**
     * Quota leases never admit over the limit, whatever two nodes and 32 threads do; once the nodes
     * give back what they did not use, the client gets exactly the rest of its limit.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("leasingAlgorithms")
    void withLeasesTwoNodesAndManyThreadsNeverAdmitOverTheLimit(Algorithm algorithm) throws Exception {
        Rule rule = Rule.of(algorithm, 50, Duration.ofHours(1));
        String policy = newPolicy(algorithm);
        RateLimiter onA = leasing(nodeA, policy, rule, null, System::nanoTime);
        RateLimiter onB = leasing(nodeB, policy, rule, null, System::nanoTime);

        int admitted = hammer(400, 32, i -> (i % 2 == 0 ? onA : onB).tryAcquire("client").allowed());

        assertThat(admitted).isLessThanOrEqualTo(50);
        onA.giveBackLeases();
        onB.giveBackLeases();
        RateLimiter plain = limiter(nodeB, policy, rule);
        int rest = 0;
        while (plain.tryAcquire("client").allowed()) {
            rest++;
        }
        assertThat(admitted + rest).as("admitted with leases (%d), then one by one", admitted).isEqualTo(50);
    }

    /**
     * A busy client far from its limit is decided on the node: at most one round trip in ten
     * requests once its leases have grown, every request admitted, and Redis counts exactly the
     * requests made once the node gives back what it holds.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("leasingAlgorithms")
    void aBusyClientFarFromItsLimitIsDecidedOnTheNode(Algorithm algorithm) {
        // A window of a day: the buckets refill less than one permit while the test runs.
        Rule rule = Rule.of(algorithm, 1000, Duration.ofDays(1));
        String policy = newPolicy(algorithm);
        RoundTrips trips = new RoundTrips();
        RateLimiter onA = leasing(nodeA, policy, rule, trips, System::nanoTime);
        RateLimiter plain = limiter(nodeB, policy, rule);

        for (int i = 0; i < 300; i++) {
            Decision decision = onA.tryAcquire("busy");
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.remaining()).as("remaining of request %d", i).isEqualTo(1000 - i - 1);
        }

        assertThat(trips.count.get()).as("round trips for 300 requests").isLessThanOrEqualTo(30);
        assertThat(onA.stats().leaseAdmissions()).as("every request without a round trip came from a lease")
                .isEqualTo(300 - trips.count.get());
        assertThat(plain.peek("busy").remaining()).as("what Redis counts while the node holds a lease")
                .isBetween(700L - 256, 700L);
        onA.giveBackLeases();
        assertThat(plain.peek("busy").remaining()).as("once the lease is given back").isEqualTo(700);
    }

    /**
     * A lease that ends unused goes back with the node's next round trip for any client, before that
     * decision: the lease's client then has exactly the rest of its limit.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("leasingAlgorithms")
    void anUnusedLeaseGoesBackWithTheNodesNextRoundTrip(Algorithm algorithm) {
        Rule rule = Rule.of(algorithm, 1000, Duration.ofDays(1));
        String policy = newPolicy(algorithm);
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        RateLimiter onA = leasing(nodeA, policy, rule, null, nanos::get);
        RateLimiter plain = limiter(nodeB, policy, rule);
        for (int i = 0; i < 40; i++) {
            assertThat(onA.tryAcquire("paused").allowed()).isTrue();
        }
        assertThat(plain.peek("paused").remaining()).as("a lease is held").isLessThan(960);

        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(onA.tryAcquire("another").allowed()).isTrue();

        assertThat(plain.peek("paused").remaining()).isEqualTo(960);
    }

    @Test
    void leasesAreRefusedWhereTheyCannotBeExact() {
        assertThatThrownBy(() -> RateLimiter.builder(nodeA).leases(true)
                .rule(Rule.of(Algorithm.LEAKY_BUCKET, 10, Duration.ofSeconds(1))).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("leases must be false unless there is one fixed-window, sliding-log, token-bucket "
                        + "or gcra rule over transport lua and no adaptive limits, but the rules were [10/1s");
        assertThatThrownBy(() -> RateLimiter.builder(nodeA).leases(true).transport(Transport.TRANSACTION)
                .rule(Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(1))).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over transport transaction");
    }

    interface Attempt {
        boolean allowed(int index) throws Exception;
    }

    /** Runs the attempts from many threads released at once; returns how many were allowed. */
    static int hammer(int attempts, int threads, Attempt attempt) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < attempts; i++) {
                int index = i;
                Callable<Boolean> task = () -> {
                    start.await();
                    return attempt.allowed(index);
                };
                results.add(pool.submit(task));
            }
            start.countDown();
            int allowed = 0;
            for (Future<Boolean> result : results) {
                if (result.get(30, TimeUnit.SECONDS)) {
                    allowed++;
                }
            }
            return allowed;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The permits {@code rule} can have given back since {@code sinceNanos} (System.nanoTime(), read
     * before the first call of the run was sent): one per window / limit at most, whatever the
     * algorithm (the buckets and GCRA refill at that rate, a sliding window's previous window loses
     * weight at it, and a fixed window or a sliding log gives nothing back before a whole window).
     * Derived from the rule and the time the test measured: on a quick machine zero, so the counts
     * are exact; a machine that stalls between calls loosens the expectation by what the rule gives
     * back meanwhile, rather than failing a test whose calls were assumed to fit in 100 ms.
     */
    private static long regainable(Rule rule, long sinceNanos) {
        return (System.nanoTime() - sinceNanos) * rule.limit() / rule.window().toNanos();
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static void sleepUntil(long startNanos, Duration after) throws InterruptedException {
        long wait = startNanos + after.toNanos() - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
