package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RedisFailureException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;

/**
 * How {@link SlidingLogTurns} lines up one key's concurrent decisions, against sessions that answer
 * as Redis does for an empty log: one transaction at a time per key, the waiting ones together, a
 * request that never gets its turn denied rather than failed, a failure handed to every request of
 * its transaction, and nothing kept for a key once its decisions are answered.
 */
class SlidingLogTurnsTest {
    /** An empty log; every EXEC succeeds. Counts its tries and the requests they decided. */
    private static final class EmptyLog extends EmptyLogSession {
        @Override
        public List<Object> commit(List<CommandArguments> sent) {
            return new ArrayList<>(Collections.nCopies(sent.size(), (Object) 1L));
        }
    }

    private static final long WINDOW = TimeUnit.MINUTES.toMicros(1);

    @Test
    void concurrentRequestsOfOneKeyTakeTheirTurnsAndTravelTogether() throws Exception {
        // Patience enough for 200 threads to start on a loaded machine: this is about turns, not time.
        SlidingLogTurns turns = new SlidingLogTurns(Duration.ofSeconds(30), "test");
        AtomicInteger underWay = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger tries = new AtomicInteger();
        int requests = 200;
        SlidingLogTransactions.Sessions slow = attempt -> {
            mostAtOnce.accumulateAndGet(underWay.incrementAndGet(), Math::max);
            try {
                if (tries.incrementAndGet() == 1) {
                    // The first transaction lasts until every other request waits behind it, so that
                    // how they travel does not depend on how fast the machine starts threads.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (turns.waiting("rl:p:{storm}") < requests - 1 && System.nanoTime() < deadline) {
                        TimeUnit.MILLISECONDS.sleep(1);
                    }
                }
                return attempt.apply(new EmptyLog());
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                underWay.decrementAndGet();
            }
        };
        ExecutorService threads = Executors.newFixedThreadPool(requests);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> decisions = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                decisions.add(threads.submit(() -> {
                    start.await();
                    return turns.decide(slow, "rl:p:{storm}", 1, 1000, WINDOW, true);
                }));
            }
            start.countDown();
            int admitted = 0;
            for (Future<long[]> decision : decisions) {
                admitted += decision.get(30, TimeUnit.SECONDS)[0];
            }

            assertThat(admitted).isEqualTo(requests);
            assertThat(mostAtOnce.get()).as("transactions of one key under way at once").isEqualTo(1);
            // The first alone, then the 199 waiting in batches of at most MAX_BATCH: 64, 64, 64, 7.
            assertThat(tries.get()).as("transactions for %d requests", requests)
                    .isEqualTo(1 + (requests - 1 + SlidingLogTurns.MAX_BATCH - 1) / SlidingLogTurns.MAX_BATCH);
            assertThat(turns.contendedDenials()).isZero();
            assertThat(turns.keysUnderWay()).as("nothing kept once answered").isZero();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aRequestWhoseTurnDoesNotComeWithinThePatienceIsDeniedNotFailed() throws Exception {
        SlidingLogTurns turns = new SlidingLogTurns(Duration.ofMillis(50), "test");
        CountDownLatch leaderInside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SlidingLogTransactions.Sessions stuck = attempt -> {
            leaderInside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return attempt.apply(new EmptyLog());
        };
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<long[]> leader = threads.submit(() -> turns.decide(stuck, "k", 1, 10, WINDOW, true));
            assertThat(leaderInside.await(5, TimeUnit.SECONDS)).isTrue();

            long[] waited = turns.decide(stuck, "k", 1, 10, WINDOW, true);

            assertThat(waited[0]).as("denied").isZero();
            assertThat(waited[1]).as("remaining").isZero();
            assertThat(waited[2]).as("retry-after: the patience").isEqualTo(50_000);
            assertThat(turns.contendedDenials()).isEqualTo(1);
            release.countDown();
            assertThat(leader.get(5, TimeUnit.SECONDS)[0]).as("the leader is decided by Redis").isEqualTo(1);
            assertThat(turns.keysUnderWay()).isZero();
        } finally {
            release.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void aFailureOfTheTransactionFailsEveryRequestInItAndTheNextTurnGoesOn() throws Exception {
        SlidingLogTurns turns = new SlidingLogTurns(Duration.ofSeconds(5), "test");
        CountDownLatch leaderInside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        SlidingLogTransactions.Sessions failing = attempt -> {
            if (calls.incrementAndGet() == 1) {
                leaderInside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            throw new RedisFailureException("Redis at test failed", null);
        };
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            Future<long[]> leader = threads.submit(() -> turns.decide(failing, "k", 1, 10, WINDOW, true));
            assertThat(leaderInside.await(5, TimeUnit.SECONDS)).isTrue();
            List<Future<long[]>> waiting = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiting.add(threads.submit(() -> turns.decide(failing, "k", 1, 10, WINDOW, true)));
            }
            TimeUnit.MILLISECONDS.sleep(100);
            release.countDown();

            for (Future<long[]> each : waiting) {
                assertThatThrownBy(() -> each.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RedisFailureException.class);
            }
            assertThatThrownBy(() -> leader.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RedisFailureException.class);
            assertThat(calls.get()).as("the leader's try, then one for the three that waited together").isEqualTo(2);
            assertThat(turns.contendedDenials()).as("a failure is no contention").isZero();
            assertThat(turns.keysUnderWay()).isZero();
        } finally {
            release.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void aMillionClientsLeaveNothingBehind() {
        SlidingLogTurns turns = new SlidingLogTurns(Duration.ofSeconds(1), "test");
        SlidingLogTransactions.Sessions instant = attempt -> attempt.apply(new EmptyLog());
        for (int i = 0; i < 1_000_000; i++) {
            turns.decide(instant, "rl:p:{" + i + "}", 1, 10, WINDOW, true);
        }
        assertThat(turns.keysUnderWay()).isZero();
    }

    @Test
    void aPeekGoesAtOnceWithoutATurn() {
        SlidingLogTurns turns = new SlidingLogTurns(Duration.ofSeconds(1), "test");
        long[] peeked = turns.decide(attempt -> attempt.apply(new EmptyLog()), "k", 3, 10, WINDOW, false);
        assertThat(peeked).containsExactly(1, 10, 0, 0);
    }
}
