package dev.ratelimit.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RedisStoreExtension;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CountersIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Two nodes of one application, each with its own store. */
    @RegisterExtension
    static final RedisStoreExtension nodeA = new RedisStoreExtension(redis);
    @RegisterExtension
    static final RedisStoreExtension nodeB = new RedisStoreExtension(redis);

    private static SlidingWindowCounter events(RedisStoreExtension node, String name, Duration window, int slots) {
        return SlidingWindowCounter.builder(node.get(), name, window).keyPrefix(redis.keyPrefix()).slots(slots).build();
    }

    private static DistinctCounter distinct(RedisStoreExtension node, String name, Duration window, int maxItems) {
        return DistinctCounter.builder(node.get(), name, window).keyPrefix(redis.keyPrefix()).maxItems(maxItems)
                .build();
    }

    @Test
    void eventsAreCountedClearedAndExpire() {
        SlidingWindowCounter counter = events(nodeA, "logins", Duration.ofMinutes(15), 20);
        assertThat(counter.count("alice")).isZero();
        assertThat(redis.client().exists(counter.redisKey("alice"))).as("counting writes nothing").isFalse();
        assertThat(counter.increment("alice")).isEqualTo(1);
        assertThat(counter.increment("alice")).isEqualTo(2);
        assertThat(counter.increment("alice", 5)).isEqualTo(7);
        assertThat(counter.count("alice")).isEqualTo(7);
        assertThat(counter.count("bob")).isZero();
        assertThat(redis.client().pttl(counter.redisKey("alice")))
                .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(15).toMillis());

        counter.clear("alice");

        assertThat(counter.count("alice")).isZero();
        assertThatThrownBy(() -> counter.increment("alice", 0)).hasMessage("events must be at least 1, but was 0");
    }

    @Test
    void eventsLeaveTheWindowAfterItPasses() throws Exception {
        SlidingWindowCounter counter = events(nodeA, "short", Duration.ofMillis(300), 3);
        // The count the increment answers, in the same script: a separate read could come after the
        // first 100 ms slot had left the 300 ms window on a machine that stalled in between.
        assertThat(counter.increment("c", 4)).as("the events in the window, these included").isEqualTo(4);
        TimeUnit.MILLISECONDS.sleep(450);
        assertThat(counter.count("c")).isZero();
        assertThat(counter.increment("c")).isEqualTo(1);
    }

    @Test
    void twoNodesCountEveryEvent() throws Exception {
        SlidingWindowCounter onA = events(nodeA, "shared", Duration.ofHours(1), 60);
        SlidingWindowCounter onB = events(nodeB, "shared", Duration.ofHours(1), 60);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                SlidingWindowCounter counter = i % 2 == 0 ? onA : onB;
                results.add(pool.submit(() -> counter.increment("c")));
            }
            for (Future<Long> result : results) {
                result.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(onA.count("c")).isEqualTo(400);
    }

    @Test
    void distinctItemsAreCountedOnce() {
        DistinctCounter counter = distinct(nodeA, "names", Duration.ofMinutes(10), 100);
        assertThat(counter.add("203.0.113.7", "alice")).isEqualTo(1);
        assertThat(counter.add("203.0.113.7", "bob")).isEqualTo(2);
        assertThat(counter.add("203.0.113.7", "alice")).as("seen before").isEqualTo(2);
        assertThat(counter.count("203.0.113.7")).isEqualTo(2);
        assertThat(counter.count("198.51.100.1")).isZero();
        assertThat(redis.client().pttl(counter.redisKey("203.0.113.7")))
                .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(10).toMillis());

        counter.clear("203.0.113.7");

        assertThat(counter.count("203.0.113.7")).isZero();
        assertThatThrownBy(() -> counter.add("203.0.113.7", "")).hasMessage("item must be a non-empty string, but was ''");
    }

    @Test
    void distinctItemsLeaveTheWindowAndTheSetIsCapped() throws Exception {
        DistinctCounter counter = distinct(nodeA, "capped", Duration.ofMillis(300), 3);
        String huge = "x".repeat(5_000);
        counter.add("c", huge);
        counter.add("c", "b");
        counter.add("c", "c");
        assertThat(counter.add("c", "d")).as("capped at 3").isEqualTo(3);
        assertThat(counter.add("c", huge + "y")).isEqualTo(3);
        for (String member : redis.client().zrange(counter.redisKey("c"), 0, -1)) {
            assertThat(member.length()).as("stored items are bounded").isLessThanOrEqualTo(128);
        }

        TimeUnit.MILLISECONDS.sleep(450);

        assertThat(counter.count("c")).isZero();
        assertThat(counter.add("c", "e")).isEqualTo(1);
    }

    @Test
    void countersCheckTheirSettings() {
        assertThatThrownBy(() -> SlidingWindowCounter.builder(nodeA.get(), "x", Duration.ofSeconds(1)).slots(0).build())
                .hasMessage("slots must be between 1 and 1000, but was 0");
        assertThatThrownBy(() -> DistinctCounter.builder(nodeA.get(), "x", Duration.ofDays(400)).build())
                .hasMessage("window must be between 1ms and 365d, but was 400d");
        assertThatThrownBy(() -> DistinctCounter.builder(nodeA.get(), "x y", Duration.ofSeconds(1)).build())
                .hasMessage("name must be 1 to 64 printable ASCII characters without blanks or braces, but was 'x y'");
        assertThatThrownBy(() -> DistinctCounter.builder(nodeA.get(), "x", Duration.ofSeconds(1)).maxItems(0).build())
                .hasMessage("maxItems must be between 1 and 1000000, but was 0");
    }
}
