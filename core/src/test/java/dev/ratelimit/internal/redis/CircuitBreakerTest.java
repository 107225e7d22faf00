package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.redis.CircuitBreaker.Pass;
import dev.ratelimit.internal.redis.CircuitBreaker.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
    private final AtomicLong now = new AtomicLong(5_000);
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ZERO, now::get);

    /** A breaker whose callers wait for a probe's verdict, longer than any test runs. */
    private final CircuitBreaker waiting = new CircuitBreaker(3, Duration.ofSeconds(1), Duration.ofMinutes(1),
            Duration.ofMinutes(1), now::get);
    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void itOpensAfterConsecutiveFailuresOnly() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).as("a success in between starts the count again").isEqualTo(State.CLOSED);
        assertThat(breaker.pass(false).allowed()).isTrue();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.pass(false).allowed()).isFalse();
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void afterTheCoolDownExactlyOneProbeGoesThrough() {
        open();
        advanceMillis(999);
        assertThat(breaker.pass(false).allowed()).isFalse();
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofMillis(1));

        advanceMillis(1);

        assertThat(breaker.pass(false).allowed()).as("the probe").isTrue();
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.pass(false).allowed()).as("everyone else while the probe is out").isFalse();
        assertThat(breaker.pass(false).allowed()).isFalse();
    }

    @Test
    void aSuccessfulProbeClosesIt() {
        open();
        advanceMillis(1000);
        assertThat(breaker.pass(false).allowed()).isTrue();

        breaker.onSuccess();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.pass(false).allowed()).isTrue();
        breaker.onFailure();
        assertThat(breaker.state()).as("the count started again").isEqualTo(State.CLOSED);
    }

    @Test
    void aFailedProbeOpensItForAnotherCoolDown() {
        open();
        advanceMillis(1000);
        assertThat(breaker.pass(false).allowed()).isTrue();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
        advanceMillis(500);
        assertThat(breaker.pass(false).allowed()).isFalse();
        advanceMillis(500);
        assertThat(breaker.pass(false).allowed()).isTrue();
    }

    @Test
    void aProbeThatEndsWithoutAVerdictPassesItsTurnToTheNextCaller() {
        open();
        advanceMillis(1000);
        assertThat(breaker.pass(false).allowed()).as("the probe").isTrue();
        assertThat(breaker.pass(false).allowed()).isFalse();

        breaker.onInconclusive();

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.pass(false).allowed()).as("the next caller probes at once").isTrue();
        assertThat(breaker.pass(false).allowed()).as("one probe at a time still").isFalse();
        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void anInconclusiveCallChangesNothingWhenClosedOrOpen() {
        breaker.onFailure();
        breaker.onInconclusive();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).as("the count went on").isEqualTo(State.OPEN);
        breaker.onInconclusive();
        assertThat(breaker.pass(false).allowed()).as("still cooling down").isFalse();
    }

    @Test
    void aProbeThatNeverReportsIsPresumedLostAfterItsLease() {
        CircuitBreaker leased = new CircuitBreaker(1, Duration.ofSeconds(1), Duration.ofMillis(600), Duration.ZERO, now::get);
        leased.onFailure();
        advanceMillis(1000);
        assertThat(leased.pass(false).allowed()).as("the probe, which will never report").isTrue();

        advanceMillis(599);
        assertThat(leased.pass(false).allowed()).isFalse();
        advanceMillis(1);

        assertThat(leased.pass(false).allowed()).as("another probe after the lease").isTrue();
        assertThat(leased.pass(false).allowed()).isFalse();
        leased.onFailure();
        assertThat(leased.state()).isEqualTo(State.OPEN);
        assertThat(leased.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void callersThatFindTheProbeOutWaitForItsAnswerAndThenGoToRedis() throws Exception {
        openAndCoolDown(waiting);
        assertThat(waiting.pass(false)).isEqualTo(Pass.PROBE);
        List<CompletableFuture<Pass>> others = waitingCallers(waiting, 32, false);

        waiting.onSuccess();

        for (CompletableFuture<Pass> other : others) {
            assertThat(other.get(10, TimeUnit.SECONDS)).as("Redis answered the probe: decided by Redis").isEqualTo(Pass.GO);
        }
        assertThat(waiting.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aFailedProbeRefusesTheCallersThatWaitedForIt() throws Exception {
        openAndCoolDown(waiting);
        assertThat(waiting.pass(false)).isEqualTo(Pass.PROBE);
        List<CompletableFuture<Pass>> others = waitingCallers(waiting, 8, false);

        waiting.onFailure();

        for (CompletableFuture<Pass> other : others) {
            assertThat(other.get(10, TimeUnit.SECONDS)).isEqualTo(Pass.PROBE_FAILED);
        }
        assertThat(waiting.state()).isEqualTo(State.OPEN);
        assertThat(waiting.pass(false)).as("another cool-down, no wait").isEqualTo(Pass.COOLING_DOWN);
        assertThat(waiting.refusal(Pass.PROBE_FAILED)).contains("could not be reached");
    }

    @Test
    void aWaitWithNoVerdictEndsAfterTheWaitForAPooledConnection() {
        CircuitBreaker shortWait = new CircuitBreaker(1, Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMillis(30), now::get);
        openAndCoolDown(shortWait);
        assertThat(shortWait.pass(false)).isEqualTo(Pass.PROBE);

        assertThat(shortWait.pass(false)).isEqualTo(Pass.NO_VERDICT);
        assertThat(shortWait.refusal(Pass.NO_VERDICT)).isEqualTo("was being checked by another call, with no verdict "
                + "within 30ms, the wait for a pooled connection");
        assertThat(shortWait.state()).as("the probe is still out").isEqualTo(State.HALF_OPEN);
    }

    @Test
    void aProbeWithoutAVerdictHandsTheTurnToOneWaitingCaller() throws Exception {
        openAndCoolDown(waiting);
        assertThat(waiting.pass(false)).isEqualTo(Pass.PROBE);
        List<CompletableFuture<Pass>> others = waitingCallers(waiting, 6, false);

        waiting.onInconclusive();

        CompletableFuture<Object> first = CompletableFuture.anyOf(others.toArray(new CompletableFuture<?>[0]));
        assertThat(first.get(10, TimeUnit.SECONDS)).as("one of them probes now").isEqualTo(Pass.PROBE);
        assertThat(others.stream().filter(CompletableFuture::isDone)).hasSize(1);
        waiting.onSuccess();
        for (CompletableFuture<Pass> other : others) {
            assertThat(other.get(10, TimeUnit.SECONDS)).isIn(Pass.PROBE, Pass.GO);
        }
        assertThat(others.stream().filter(other -> other.join() == Pass.PROBE)).hasSize(1);
    }

    @Test
    void aDoubtedNodeIsCheckedByOneCallerWhileTheOthersWhoDoubtItWait() throws Exception {
        assertThat(waiting.pass(true)).as("the first caller to doubt a quiet node checks it").isEqualTo(Pass.PROBE);
        List<CompletableFuture<Pass>> doubters = waitingCallers(waiting, 8, true);
        assertThat(waiting.pass(false)).as("a caller with no doubt is never held").isEqualTo(Pass.GO);

        waiting.onSuccess();

        for (CompletableFuture<Pass> doubter : doubters) {
            assertThat(doubter.get(10, TimeUnit.SECONDS)).isEqualTo(Pass.GO);
        }
        assertThat(waiting.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aFailedCheckOfADoubtedNodeCountsOnceAndRefusesItsWaiters() throws Exception {
        assertThat(waiting.pass(true)).isEqualTo(Pass.PROBE);
        List<CompletableFuture<Pass>> doubters = waitingCallers(waiting, 4, true);

        waiting.onFailure();

        for (CompletableFuture<Pass> doubter : doubters) {
            assertThat(doubter.get(10, TimeUnit.SECONDS)).isEqualTo(Pass.PROBE_FAILED);
        }
        assertThat(waiting.state()).as("one failure of three").isEqualTo(State.CLOSED);
        assertThat(waiting.pass(true)).as("the next doubter checks again").isEqualTo(Pass.PROBE);
    }

    @Test
    void anInterruptedWaiterIsRefusedAndKeepsItsFlag() throws Exception {
        openAndCoolDown(waiting);
        assertThat(waiting.pass(false)).isEqualTo(Pass.PROBE);
        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        CompletableFuture<Pass> interrupted = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            interrupted.complete(waiting.pass(false));
            flagKept.complete(Thread.currentThread().isInterrupted());
        });
        caller.start();
        awaitWaiting(caller);

        caller.interrupt();

        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isEqualTo(Pass.NO_VERDICT);
        assertThat(flagKept.get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Callers that each call {@code pass(doubt)} on their own thread; returns once all of them wait. */
    private List<CompletableFuture<Pass>> waitingCallers(CircuitBreaker breaker, int count, boolean doubt)
            throws InterruptedException {
        List<CompletableFuture<Pass>> passes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            CompletableFuture<Pass> pass = new CompletableFuture<>();
            Thread thread = new Thread(() -> pass.complete(breaker.pass(doubt)));
            thread.setDaemon(true);
            thread.start();
            passes.add(pass);
            threads.add(thread);
        }
        for (Thread thread : threads) {
            awaitWaiting(thread);
        }
        for (CompletableFuture<Pass> pass : passes) {
            assertThat(pass).as("held while the probe is out").isNotDone();
        }
        return passes;
    }

    /** Until the thread waits on a monitor (it found the probe out). */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(thread.getState()).isEqualTo(Thread.State.TIMED_WAITING);
    }

    private void openAndCoolDown(CircuitBreaker breaker) {
        for (int i = 0; i < 3 && breaker.state() != State.OPEN; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        advanceMillis(1000);
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }
}
