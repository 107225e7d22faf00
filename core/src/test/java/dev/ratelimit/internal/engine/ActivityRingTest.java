package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The per-second ring, on explicit seconds: what each second counted, and what has gone stale. */
class ActivityRingTest {
    private static final long NOW = 1_800_000_000L;

    private final ActivityRing ring = new ActivityRing();

    @Test
    void eachSecondCountsItsOwnDecisionsAndTheLastValueIsNow() {
        ring.record(NOW, true, false);
        ring.record(NOW, true, false);
        ring.record(NOW, false, false);
        ring.record(NOW - 1, false, true);
        ring.record(NOW - 299, true, true);

        long[][] series = ring.snapshot(NOW);

        assertThat(series[0]).hasSize(ActivityRing.SECONDS);
        assertThat(series[0][299]).isEqualTo(2);
        assertThat(series[1][299]).isEqualTo(1);
        assertThat(series[1][298]).isEqualTo(1);
        assertThat(series[2][298]).as("degraded, also counted as its outcome").isEqualTo(1);
        assertThat(series[0][0]).as("the oldest second kept").isEqualTo(1);
        assertThat(series[2][0]).isEqualTo(1);
        assertThat(Arrays.stream(series[0]).sum()).isEqualTo(3);
        assertThat(Arrays.stream(series[1]).sum()).isEqualTo(2);
    }

    @Test
    void aSecondOlderThanTheHorizonIsNotShownThoughItsSlotWasNeverReused() {
        ring.record(NOW - 300, true, false);
        ring.record(NOW - 299, false, false);

        long[][] series = ring.snapshot(NOW);

        assertThat(Arrays.stream(series[0]).sum()).as("300 s ago is gone").isZero();
        assertThat(series[1][0]).isEqualTo(1);
        assertThat(Arrays.stream(ring.snapshot(NOW + 1)[1]).sum()).as("a second later, gone too").isZero();
    }

    @Test
    void aSlotIsResetByTheFirstDecisionOfItsNextRound() {
        for (int i = 0; i < 5; i++) {
            ring.record(NOW, false, false);
        }
        ring.record(NOW + 300, false, false);

        long[][] series = ring.snapshot(NOW + 300);

        assertThat(series[1][299]).as("the same slot, five minutes later, starts again at 1").isEqualTo(1);
        assertThat(Arrays.stream(series[1]).sum()).isEqualTo(1);
    }

    @Test
    void aStaleSlotReadsAsZeroBeforeAnyoneWritesIt() {
        ring.record(NOW, true, false);

        assertThat(Arrays.stream(ring.snapshot(NOW + 1000)[0]).sum()).isZero();
        assertThat(ring.snapshot(NOW - 1)[0][299]).as("a second the ring has not seen yet").isZero();
    }

    @Test
    void concurrentWritersLoseNoCount() throws InterruptedException {
        Thread[] writers = new Thread[4];
        for (int t = 0; t < writers.length; t++) {
            writers[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    ring.record(NOW + i % 3, i % 2 == 0, false);
                }
            });
            writers[t].start();
        }
        for (Thread writer : writers) {
            writer.join();
        }

        long[][] series = ring.snapshot(NOW + 2);

        assertThat(Arrays.stream(series[0]).sum() + Arrays.stream(series[1]).sum()).isEqualTo(40_000);
    }
}
