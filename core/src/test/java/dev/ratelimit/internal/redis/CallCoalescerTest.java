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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hand-off of {@link CallCoalescer}, with a sender in memory: every caller gets its own reply
 * exactly once, a lone call goes alone and at once, no more round trips than allowed are under way,
 * and nothing is stranded when a send fails.
 */
class CallCoalescerTest {
    private static final LuaScript SCRIPT = LuaScript.load("refund");
    /** Longer than any test waits: only the test of the wait itself meets it. */
    private static final Duration WAIT = Duration.ofMinutes(1);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Answers each call with its own number, counting what it was asked. */
    private static class EchoSender implements CallCoalescer.Sender {
        final AtomicInteger underWay = new AtomicInteger();
        final AtomicInteger mostUnderWay = new AtomicInteger();
        final AtomicInteger alone = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();
        final AtomicInteger largestBatch = new AtomicInteger();
        final AtomicLong sent = new AtomicLong();

        @Override
        public List<Long> one(ScriptCall call) {
            enter();
            try {
                alone.incrementAndGet();
                return answer(call);
            } finally {
                underWay.decrementAndGet();
            }
        }

        @Override
        public List<ScriptCall.Outcome> many(List<ScriptCall> calls) {
            enter();
            try {
                batches.incrementAndGet();
                largestBatch.accumulateAndGet(calls.size(), Math::max);
                List<ScriptCall.Outcome> outcomes = new ArrayList<>();
                for (ScriptCall call : calls) {
                    outcomes.add(ScriptCall.Outcome.of(answer(call)));
                }
                return outcomes;
            } finally {
                underWay.decrementAndGet();
            }
        }

        private void enter() {
            mostUnderWay.accumulateAndGet(underWay.incrementAndGet(), Math::max);
            // A round trip takes a moment, so that others meet it under way.
            Thread.yield();
        }

        List<Long> answer(ScriptCall call) {
            sent.incrementAndGet();
            return Collections.singletonList(Long.parseLong(call.args.get(0)));
        }
    }

    /** A sender whose call number 0 stays under way until {@link #release()}: others meet it there. */
    private static class HoldingSender extends EchoSender {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);

        @Override
        public List<Long> one(ScriptCall call) {
            if (call.args.get(0).equals("0")) {
                held.countDown();
                await(released);
            }
            return super.one(call);
        }

        /** Starts call 0 on another thread and returns once it is under way. */
        Future<List<Long>> holdFirst(CallCoalescer coalescer, ExecutorService threads) throws InterruptedException {
            Future<List<Long>> first = threads.submit(() -> coalescer.eval(call(0)));
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            return first;
        }

        void release() {
            released.countDown();
        }
    }

    /** Waits up to 10 s for a condition other threads bring about. */
    private static void until(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private static ScriptCall call(long number) {
        return new ScriptCall(SCRIPT, Collections.singletonList("key-" + number), Collections.singletonList(Long.toString(number)));
    }

    @Test
    void aLoneCallGoesAloneAndAtOnce() {
        EchoSender sender = new EchoSender();
        CallCoalescer coalescer = new CallCoalescer(sender, 1, WAIT, "test");

        assertThat(coalescer.eval(call(7))).containsExactly(7L);
        assertThat(coalescer.eval(call(8))).containsExactly(8L);

        assertThat(sender.alone).hasValue(2);
        assertThat(sender.batches).hasValue(0);
        assertThat(coalescer.coalescedCalls()).isZero();
    }

    @Test
    void callsThatWaitWhileRedisIsBusyTravelTogether() throws Exception {
        HoldingSender sender = new HoldingSender();
        CallCoalescer coalescer = new CallCoalescer(sender, 1, WAIT, "test");
        Future<List<Long>> first = sender.holdFirst(coalescer, threads);
        List<Future<List<Long>>> others = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            long number = i;
            others.add(threads.submit(() -> coalescer.eval(call(number))));
        }
        // All five are parked behind the first round trip before it ends.
        until(() -> queued(coalescer) == 5);
        assertThat(queued(coalescer)).isEqualTo(5);
        sender.release();

        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(0L);
        for (int i = 0; i < 5; i++) {
            assertThat(others.get(i).get(10, TimeUnit.SECONDS)).containsExactly(i + 1L);
        }
        assertThat(sender.batches).hasValue(1);
        assertThat(sender.largestBatch).hasValue(5);
        assertThat(coalescer.coalescedCalls()).isEqualTo(5);
    }

    @Test
    void manyThreadsEachGetTheirOwnReplyExactlyOnceWithinTheRoundTripsAllowed() throws Exception {
        for (int maxInFlight : new int[] {1, 2}) {
            EchoSender sender = new EchoSender();
            CallCoalescer coalescer = new CallCoalescer(sender, maxInFlight, WAIT, "test");
            int callers = 32;
            int callsEach = 400;
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < callers; t++) {
                long base = t * 1_000_000L;
                done.add(threads.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        assertThat(coalescer.eval(call(base + i))).containsExactly(base + i);
                    }
                    return callsEach;
                }));
            }
            for (Future<Integer> each : done) {
                assertThat(each.get(60, TimeUnit.SECONDS)).isEqualTo(callsEach);
            }
            assertThat(sender.sent).hasValue((long) callers * callsEach);
            assertThat(sender.mostUnderWay.get()).isBetween(1, maxInFlight);
            assertThat(sender.largestBatch.get()).isLessThanOrEqualTo(CallCoalescer.MAX_BATCH);
            assertThat(queued(coalescer)).isZero();
        }
    }

    @Test
    void aFailedRoundTripFailsEachOfItsCallersAndStrandsNoOne() throws Exception {
        RedisFailureException lost = new RedisFailureException("Redis went away", null);
        CallCoalescer.Sender failing = new CallCoalescer.Sender() {
            @Override
            public List<Long> one(ScriptCall call) {
                Thread.yield();
                throw lost;
            }

            @Override
            public List<ScriptCall.Outcome> many(List<ScriptCall> calls) {
                Thread.yield();
                List<ScriptCall.Outcome> outcomes = new ArrayList<>();
                for (int i = 0; i < calls.size(); i++) {
                    outcomes.add(ScriptCall.Outcome.failed(lost));
                }
                return outcomes;
            }
        };
        CallCoalescer coalescer = new CallCoalescer(failing, 1, WAIT, "test");
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            done.add(threads.submit(() -> {
                int failures = 0;
                for (int i = 0; i < 200; i++) {
                    try {
                        coalescer.eval(call(i));
                    } catch (RedisFailureException e) {
                        assertThat(e).isSameAs(lost);
                        failures++;
                    }
                }
                return failures;
            }));
        }
        for (Future<Integer> each : done) {
            assertThat(each.get(60, TimeUnit.SECONDS)).isEqualTo(200);
        }
    }

    @Test
    void aBugWhileSendingForOthersAnswersThemAndReachesTheSender() throws Exception {
        HoldingSender buggy = new HoldingSender() {
            @Override
            public List<ScriptCall.Outcome> many(List<ScriptCall> calls) {
                throw new IllegalStateException("a bug");
            }
        };
        CallCoalescer coalescer = new CallCoalescer(buggy, 1, WAIT, "test");
        Future<List<Long>> first = buggy.holdFirst(coalescer, threads);
        List<Future<List<Long>>> others = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            long number = i;
            others.add(threads.submit(() -> coalescer.eval(call(number))));
        }
        until(() -> queued(coalescer) == 3);
        buggy.release();

        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(0L);
        int bugs = 0;
        int failures = 0;
        for (Future<List<Long>> other : others) {
            try {
                other.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof IllegalStateException) {
                    bugs++;
                } else {
                    assertThat(e.getCause()).isInstanceOf(RedisFailureException.class)
                            .hasMessageContaining("never answered");
                    failures++;
                }
            }
        }
        // The caller that sent the batch sees the bug itself; the others are answered, not left parked.
        assertThat(bugs).isEqualTo(1);
        assertThat(failures).isEqualTo(2);
    }

    @Test
    void anInterruptedCallerStillGetsItsReplyAndKeepsTheFlag() throws Exception {
        HoldingSender sender = new HoldingSender();
        CallCoalescer coalescer = new CallCoalescer(sender, 1, WAIT, "test");
        Future<List<Long>> first = sender.holdFirst(coalescer, threads);
        AtomicInteger flagKept = new AtomicInteger();
        Future<List<Long>> waiting = threads.submit(() -> {
            List<Long> reply = coalescer.eval(call(1));
            flagKept.set(Thread.currentThread().isInterrupted() ? 1 : 0);
            return reply;
        });
        until(() -> queued(coalescer) == 1);
        waiting.cancel(true);
        sender.release();

        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(0L);
        until(() -> sender.sent.get() == 2 && flagKept.get() == 1);
        assertThat(sender.sent).hasValue(2);
        assertThat(flagKept).hasValue(1);
    }

    @Test
    void aCallStillQueuedAfterThePoolWaitFailsUnsentAndTheQueueGoesOn() throws Exception {
        HoldingSender sender = new HoldingSender();
        CallCoalescer coalescer = new CallCoalescer(sender, 1, Duration.ofMillis(50), "redis://node:6379");
        Future<List<Long>> first = sender.holdFirst(coalescer, threads);

        assertThatThrownBy(() -> coalescer.eval(call(1))).isInstanceOf(RedisFailureException.class)
                .hasMessage("Redis at redis://node:6379 was busy: no round trip for this call within 50ms"
                        + " (the pool wait, at least redisTimeout)");
        assertThat(queued(coalescer)).isZero();
        sender.release();

        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(0L);
        assertThat(coalescer.eval(call(2))).containsExactly(2L);
        // The call that gave up was never sent.
        assertThat(sender.sent).hasValue(2);
    }

    @Test
    void refusesNoRoundTripsAtAll() {
        assertThatThrownBy(() -> new CallCoalescer(new EchoSender(), 0, WAIT, "test")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInFlight");
    }

    private static int queued(CallCoalescer coalescer) {
        return coalescer.queued();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
