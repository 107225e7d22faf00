package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 48, item 5: a grant whose call was in flight when this node ended its leases (a client
 * reset here, {@code forget}; one elsewhere, {@code dropAll}; the rules changed, {@code settleAll})
 * must never admit afterwards, on real threads. The clock stands still, so no lease ends by age:
 * only an ending can stop one, and an admission from a stale lease cannot hide behind its expiry.
 */
class QuotaLeasesRaceTest {
    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 1000, Duration.ofMinutes(1));
    private static final long FOREVER = 1_000_000_000L;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final QuotaLeases leases = new QuotaLeases(RULE, nanos::get);

    /** The three ways a node ends leases, each ending the lease of client {@code c}. */
    enum Ending {
        FORGET(leases -> leases.forget("c")),
        DROP_ALL(QuotaLeases::dropAll),
        SETTLE_ALL(QuotaLeases::settleAll);

        final Consumer<QuotaLeases> end;

        Ending(Consumer<QuotaLeases> end) {
            this.end = end;
        }
    }

    /**
     * What Redis would hand back for client c: an admission and a lease of many permits, whose
     * keys carry {@code tag} so that an admission from it tells which grant it came from.
     */
    private void grant(long tag, long sentInEpoch) {
        Decision admission = Decision.of(true, RULE, 999, Duration.ZERO, Duration.ofSeconds(30));
        QuotaGrant grant = new QuotaGrant(leases.lifetimeMicros(), new Receipt(receipt -> true,
                Collections.singletonList("grant " + tag), new long[] {FOREVER}, new long[] {0}));
        leases.granted("c", admission, grant, nanos.get(), sentInEpoch);
    }

    private static long tagOf(Decision admission) {
        String key = DecisionAccess.get().receipt(admission).keys().get(0);
        return Long.parseLong(key.substring("grant ".length()));
    }

    /**
     * The grant's thread is held between its look at the epoch and the lease's install while this
     * thread ends the leases. Before the fix the check and the install were two steps: the lease
     * went in after the ending and admitted for its whole life.
     */
    @ParameterizedTest
    @EnumSource(Ending.class)
    void aGrantHeldBetweenItsCheckAndItsInstallWhileLeasesEndAdmitsNothing(Ending ending) throws Exception {
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        leases.beforeInstall = () -> {
            paused.countDown();
            awaitOrFail(resume);
        };
        long sentInEpoch = leases.epoch();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread granting = new Thread(() -> {
            try {
                grant(1, sentInEpoch);
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "granting");
        granting.start();
        awaitOrFail(paused);

        ending.end.accept(leases);
        resume.countDown();
        granting.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(granting.isAlive()).as("the grant returned").isFalse();
        assertThat(failed.get()).isNull();
        assertThat(leases.admit("c", 1)).as("the lease of a call sent before the ending").isNull();
        leases.beforeInstall = null;
        grant(2, leases.epoch());
        assertThat(leases.admit("c", 1)).as("a grant sent after it").isNotNull();
    }

    /**
     * Three threads grant leases for c, two admit from them and one ends them (forget, dropAll and
     * settleAll in turn), each a real thread with no hook, in 10,000 rounds that each start them all at
     * once. A grant is tagged with how many endings had begun when its call went out (read after the
     * epoch it hands over); an admission must never come from a grant whose tag is below the endings
     * that finished before the admission began: that ending began after the grant's call left, so the
     * grant was stale when it arrived. The admitting threads check during a round, and the round's
     * end checks the lease it leaves in the table. With the check and the install in two steps it
     * failed 9 runs of 10.
     */
    @Test
    void noLeaseGrantedBeforeAnEndingAdmitsAfterIt() throws Exception {
        int rounds = 10_000;
        int granting = 3;
        int admitting = 2;
        AtomicLong begun = new AtomicLong();
        AtomicLong finished = new AtomicLong();
        AtomicLong admissions = new AtomicLong();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        Runnable admitOnce = () -> {
            long endedBefore = finished.get();
            Decision admitted = leases.admit("c", 1);
            if (admitted != null) {
                admissions.incrementAndGet();
                long tag = tagOf(admitted);
                if (tag < endedBefore && violations.size() < 10) {
                    violations.add("a lease sent before ending " + (tag + 1) + " admitted after ending "
                            + endedBefore + " finished");
                }
            }
        };
        CyclicBarrier roundStarts = new CyclicBarrier(granting + admitting + 1);
        CyclicBarrier roundEnds = new CyclicBarrier(granting + admitting + 1, () -> {
            admitOnce.run();
            // The rests of replaced leases go back with a node's round trips: here, once a round.
            leases.takeUnused(LeaseRests.MOST);
        });
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < granting; i++) {
            tasks.add(inRounds(rounds, roundStarts, roundEnds, () -> {
                long epoch = leases.epoch();
                grant(begun.get(), epoch);
            }));
        }
        for (int i = 0; i < admitting; i++) {
            tasks.add(inRounds(rounds, roundStarts, roundEnds, () -> {
                for (int k = 0; k < 8; k++) {
                    admitOnce.run();
                }
            }));
        }
        Ending[] endings = Ending.values();
        tasks.add(inRounds(rounds, roundStarts, roundEnds, () -> {
            long ending = begun.incrementAndGet();
            endings[(int) (ending % endings.length)].end.accept(leases);
            finished.incrementAndGet();
        }));
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            for (Future<Void> each : threads.invokeAll(tasks, 2, TimeUnit.MINUTES)) {
                each.get();
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(finished.get()).isEqualTo(rounds);
        assertThat(admissions.get()).as("admissions from leases raced the endings").isPositive();
        assertThat(violations).isEmpty();
    }

    /**
     * {@code step} once a round, all the round's threads let go together; a step that fails breaks
     * the barriers, so that the others stop at once instead of waiting for it.
     */
    private static Callable<Void> inRounds(int rounds, CyclicBarrier starts, CyclicBarrier ends, Runnable step) {
        return () -> {
            for (int r = 0; r < rounds; r++) {
                starts.await();
                try {
                    step.run();
                } catch (RuntimeException | Error e) {
                    starts.reset();
                    ends.reset();
                    throw e;
                }
                ends.await();
            }
            return null;
        };
    }

    private static void awaitOrFail(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("waited 10 s for the other thread");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
