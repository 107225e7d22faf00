package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.CapturedErr;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How {@link SentinelProvider#awaitEnd} ends threads, on plain threads that behave as Jedis' listeners
 * can: one stops when asked again, one only when interrupted, one not even then. SentinelCloseIT shows
 * the provider's close on real Sentinels.
 */
class SentinelProviderTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    /** Released after each test: no thread of a test outlives it. */
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseThreads() {
        release.countDown();
    }

    @Test
    void aThreadThatStopsWhenAskedAgainEndsWithoutAnInterrupt() {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicInteger nudges = new AtomicInteger();
        Thread listener = started("asked-again", () -> {
            while (!stop.get()) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    return;
                }
            }
        });

        String logged = CapturedErr.during(() -> assertThat(SentinelProvider.awaitEnd(Collections.singletonList(listener),
                thread -> {
                    if (nudges.incrementAndGet() == 2) {
                        stop.set(true);
                    }
                }, LONG, LONG)).isEmpty());

        assertThat(listener.isAlive()).isFalse();
        assertThat(nudges.get()).as("times asked").isGreaterThanOrEqualTo(2);
        assertThat(interrupted.get()).as("interrupted").isFalse();
        assertThat(logged).isEmpty();
    }

    @Test
    void aThreadStillRunningAfterTheBoundIsInterrupted() {
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread listener = started("asleep", () -> {
            try {
                Thread.sleep(LONG.toMillis());
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });

        String logged = CapturedErr.during(() -> assertThat(SentinelProvider.awaitEnd(Collections.singletonList(listener),
                thread -> { }, Duration.ofMillis(200), LONG)).isEmpty());

        assertThat(listener.isAlive()).isFalse();
        assertThat(interrupted.get()).as("interrupted").isTrue();
        assertThat(logged).isEmpty();
    }

    @Test
    void aThreadThatOutlivesTheInterruptIsNamedInOneWarning() {
        Thread stuck = started("stuck-connecting", this::awaitReleaseUninterruptibly);

        String logged = CapturedErr.during(() -> assertThat(SentinelProvider.awaitEnd(Collections.singletonList(stuck),
                thread -> { }, Duration.ofMillis(100), Duration.ofMillis(100))).containsExactly(stuck));

        assertThat(CapturedErr.count(logged, " WARN ")).as("warnings in\n%s", logged).isEqualTo(1);
        assertThat(logged).contains("Redis Sentinel listener threads still run").contains("[stuck-connecting]")
                .contains("redisSentinelNodes");
    }

    @Test
    void anInterruptedCallerStopsWaitingAndKeepsItsInterrupt() {
        Thread stuck = started("stuck-while-undeploying", this::awaitReleaseUninterruptibly);
        AtomicReference<List<Thread>> left = new AtomicReference<>();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        long start = System.nanoTime();

        String logged = CapturedErr.during(() -> {
            Thread.currentThread().interrupt();
            left.set(SentinelProvider.awaitEnd(Collections.singletonList(stuck), thread -> { }, LONG, LONG));
            keptInterrupt.set(Thread.interrupted());
        });

        assertThat(keptInterrupt.get()).as("the caller's interrupt, kept").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG);
        assertThat(left.get()).containsExactly(stuck);
        assertThat(logged).contains("[stuck-while-undeploying]");
    }

    private void awaitReleaseUninterruptibly() {
        long end = System.nanoTime() + LONG.toNanos();
        while (release.getCount() > 0 && System.nanoTime() < end) {
            try {
                release.await(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ignored) {
                // as a thread blocked in a socket connect would: an interrupt changes nothing
            }
        }
    }

    private static Thread started(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
