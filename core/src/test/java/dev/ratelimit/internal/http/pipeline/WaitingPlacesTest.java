package dev.ratelimit.internal.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.pipeline.WaitingPlaces.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code maxDelayed} places, and one client's share of them: fewer than are still free. */
class WaitingPlacesTest {
    private final WaitingPlaces places = new WaitingPlaces(10);

    private int take(String client, int times) {
        int taken = 0;
        for (int i = 0; i < times; i++) {
            if (places.take(client) == Outcome.TAKEN) {
                taken++;
            }
        }
        return taken;
    }

    @Test
    void aClientAloneGetsHalfAndEachNextHalfOfWhatIsLeft() {
        assertThat(take("greedy", 20)).as("fewer held than free: 5 held, 5 free").isEqualTo(5);
        assertThat(places.take("greedy")).isEqualTo(Outcome.SHARE_HELD);
        assertThat(take("second", 20)).as("half of the 5 left, rounded up").isEqualTo(3);
        assertThat(take("third", 20)).isEqualTo(1);
        assertThat(take("fourth", 20)).isEqualTo(1);
        assertThat(places.now()).isEqualTo(10);
        assertThat(places.take("fifth")).as("none free").isEqualTo(Outcome.FULL);
        assertThat(places.clients()).isEqualTo(4);
    }

    @Test
    void aClientHoldingNoneTakesAPlaceWheneverOneIsFree() {
        take("greedy", 5);
        for (int i = 0; i < 4; i++) {
            assertThat(places.take("other-" + i)).isEqualTo(Outcome.TAKEN);
        }
        assertThat(places.take("last")).as("one free, none held").isEqualTo(Outcome.TAKEN);
        assertThat(places.take("late")).isEqualTo(Outcome.FULL);
    }

    @Test
    void releasedPlacesGoBackAndAClientHoldingNoneLeavesNoEntry() {
        take("greedy", 5);
        take("other", 2);
        for (int i = 0; i < 5; i++) {
            places.release("greedy");
        }
        places.release("other");
        places.release("never-took");
        assertThat(places.now()).isEqualTo(1);
        assertThat(places.clients()).as("only the client still holding one").isEqualTo(1);
        places.release("other");
        assertThat(places.now()).isZero();
        assertThat(places.clients()).isZero();
        assertThat(take("greedy", 20)).as("all back").isEqualTo(5);
    }

    @Test
    void refusalsAreCountedByWhy() {
        places.refused(Outcome.FULL);
        places.refused(Outcome.SHARE_HELD);
        places.refused(Outcome.SHARE_HELD);
        assertThat(places.refusedFullSoFar()).isEqualTo(1);
        assertThat(places.refusedShareSoFar()).isEqualTo(2);
    }

    @Test
    void manyThreadsOfOneGreedyClientAndOthersNeverPassTheBoundsAndGiveEverythingBack() throws Exception {
        WaitingPlaces shared = new WaitingPlaces(100);
        ExecutorService threads = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<int[]>> runs = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            String client = t < 8 ? "greedy" : "client-" + t;
            runs.add(threads.submit(() -> {
                start.await();
                int taken = 0;
                int mostSeen = 0;
                for (int i = 0; i < 20_000; i++) {
                    if (shared.take(client) == Outcome.TAKEN) {
                        taken++;
                        mostSeen = Math.max(mostSeen, shared.now());
                        shared.release(client);
                    }
                }
                return new int[] {taken, mostSeen};
            }));
        }
        start.countDown();
        for (Future<int[]> run : runs) {
            int[] result = run.get(60, TimeUnit.SECONDS);
            assertThat(result[1]).as("never more than maxDelayed held").isLessThanOrEqualTo(100);
        }
        threads.shutdown();
        assertThat(shared.now()).as("every place given back").isZero();
        assertThat(shared.clients()).as("no entry left").isZero();
    }
}
