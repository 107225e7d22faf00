package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisSentinelExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;

/**
 * Issue 49: a store closed on Sentinel leaves no thread of its own running or retrying, so an undeployed
 * webapp leaves none behind (Tomcat reports such a thread as leaked) and nothing logs after the close.
 * Jedis runs a listener thread per Sentinel, named {@code <master>-SentinelListener-[<sentinel>]}; each test
 * looks only at the listeners that started while its store opened and that name a Sentinel of this class
 * (its own processes, or a proxy in front of one), since other test classes in the JVM run their own.
 */
class SentinelCloseIT {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    /**
     * Generous: close may wait out a listener's resubscribe back-off (5 s) and one connect; the point
     * is that it returns, not how fast.
     */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(10);
    /** The longest the tests wait for a condition Jedis reaches on its own. */
    private static final Duration CONDITION_BOUND = Duration.ofSeconds(30);
    /** The shared thread commons-pool2 runs for pools whose idle evictor is on. */
    private static final String EVICTOR = "commons-pool-evictor";

    @Test
    void aClosedStoreLeavesNoSentinelListenerAndNoPoolEvictor() {
        List<String> nodes = sentinels();
        Set<Thread> before = liveThreads();
        RedisStore store = connect(nodes);
        assertThat(limiter(store).tryAcquire("close-quietly").degraded()).as("decided by Redis").isFalse();
        List<Thread> listeners = listenersStartedSince(before, nodes);
        assertThat(listeners).as("a listener per Sentinel").hasSize(nodes.size());
        assertThat(startedSince(before, EVICTOR)).as("evictor threads while the store is open").isEmpty();

        store.close();

        assertThat(alive(listeners)).as("listeners alive when close returned").isEmpty();
        assertThat(startedSince(before, EVICTOR)).as("evictor threads after close").isEmpty();
        store.close();
        assertThat(alive(listeners)).as("listeners alive after a second close").isEmpty();
    }

    /**
     * A store closed right after it opened: Jedis' listener marks itself running when its thread
     * starts, so one that had not started yet when its provider closed would not see the stop.
     */
    @Test
    void aStoreClosedAsSoonAsItOpenedLeavesNoListener() {
        List<String> nodes = sentinels();
        for (int i = 0; i < 5; i++) {
            Set<Thread> before = liveThreads();
            RedisStore store = connect(nodes);
            List<Thread> listeners = listenersStartedSince(before, nodes);

            store.close();

            assertThat(alive(listeners)).as("listeners alive when close returned, store %s", i).isEmpty();
        }
    }

    @Test
    void aListenerRetryingAnUnreachableSentinelHasEndedWhenCloseReturns() throws InterruptedException {
        List<String> real = sentinels();
        HostAndPort first = HostAndPort.from(real.get(0));
        try (FaultProxy proxy = new FaultProxy(first.getHost(), first.getPort())) {
            String proxied = proxy.host() + ":" + proxy.port();
            List<String> nodes = new ArrayList<>(real);
            nodes.set(0, proxied);
            Set<Thread> before = liveThreads();
            RedisStore store = connect(nodes);
            assertThat(limiter(store).tryAcquire("close-retrying").degraded()).as("decided by Redis").isFalse();
            List<Thread> listeners = listenersStartedSince(before, nodes);
            Thread retrying = listeners.stream().filter(t -> t.getName().contains("[" + proxied + "]"))
                    .findFirst().orElseThrow(() -> new AssertionError("no listener on " + proxied + ": " + listeners));

            // The Sentinel becomes unreachable: the listener loses its subscription, fails to connect again
            // and sleeps before it retries (Jedis logs "Lost connection to Sentinel ... Sleeping 5000ms").
            proxy.refuse();
            awaitCondition("the listener on " + proxied + " to sleep before retrying", () -> sleeping(retrying));

            long start = System.nanoTime();
            String logged = CapturedErr.during(store::close);
            Duration closing = Duration.ofNanos(System.nanoTime() - start);

            assertThat(alive(listeners)).as("listeners alive when close returned (after %s ms)", closing.toMillis())
                    .isEmpty();
            assertThat(closing).as("time close took").isLessThan(CLOSE_BOUND);
            assertThat(logged).as("the library's log while closing").doesNotContain(" WARN ").doesNotContain(" ERROR ");
            assertThat(startedSince(before, EVICTOR)).as("evictor threads after close").isEmpty();
        }
    }

    private static List<String> sentinels() {
        return sentinel.sentinelAddresses().stream().map(HostAndPort::toString).collect(Collectors.toList());
    }

    private static RedisStore connect(List<String> nodes) {
        return RedisStore.connect(RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(500))
                .sentinel(sentinel.masterName(), nodes).build());
    }

    private static RateLimiter limiter(RedisStore store) {
        return RateLimiter.builder(store).keyPrefix(sentinel.keyPrefix()).policyName("sentinel-close")
                .rule(Rule.of(Algorithm.TOKEN_BUCKET, 20, Duration.ofMinutes(1))).build();
    }

    private static Set<Thread> liveThreads() {
        return new HashSet<>(Thread.getAllStackTraces().keySet());
    }

    private static List<Thread> startedSince(Set<Thread> before, String namePart) {
        return liveThreads().stream().filter(t -> !before.contains(t) && t.getName().contains(namePart))
                .collect(Collectors.toList());
    }

    /** The Sentinel listeners started since {@code before} on one of {@code nodes}. */
    private static List<Thread> listenersStartedSince(Set<Thread> before, List<String> nodes) {
        return startedSince(before, "-SentinelListener-").stream()
                .filter(t -> nodes.stream().anyMatch(node -> t.getName().endsWith("[" + node + "]")))
                .collect(Collectors.toList());
    }

    private static List<Thread> alive(List<Thread> threads) {
        return threads.stream().filter(Thread::isAlive).collect(Collectors.toList());
    }

    /** Whether the thread is in {@code Thread.sleep}: Jedis' listener waiting before it resubscribes. */
    private static boolean sleeping(Thread thread) {
        if (thread.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(Thread.class.getName()) && frame.getMethodName().startsWith("sleep")) {
                return true;
            }
        }
        return false;
    }

    private static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + CONDITION_BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + CONDITION_BOUND.toSeconds() + " s for " + what);
            }
            Thread.sleep(10);
        }
    }
}
