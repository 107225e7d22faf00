package dev.ratelimit.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Counter writes made while Redis is down are kept and counted when it is back, within a bound. */
class CounterOutageIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @AfterEach
    void redisIsBack() {
        if (!redis.isAnswering()) {
            redis.start();
        }
    }

    private static RedisStore store() {
        return RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofMillis(300)).build());
    }

    /**
     * Reads until Redis answers again (the breaker lets a probe through after its cool-down). A read
     * sends the kept writes first, and adds nothing itself, unlike a retried write.
     */
    private static long untilReadable(java.util.function.LongSupplier read) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return read.getAsLong();
            } catch (RedisFailureException stillDown) {
                if (System.nanoTime() > deadline) {
                    throw stillDown;
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    void noEventIsLostThroughAStopAndStart() throws Exception {
        try (RedisStore store = store()) {
            SlidingWindowCounter counter = SlidingWindowCounter.builder(store, "logins", Duration.ofMinutes(10))
                    .keyPrefix(redis.keyPrefix()).pendingLimit(100).build();

            redis.stop();
            for (int i = 0; i < 20; i++) {
                assertThat(counter.increment("alice")).as("kept, count unknown").isEqualTo(-1);
            }
            assertThat(counter.pendingWrites()).isEqualTo(20);
            redis.start();

            // The restarted Redis kept nothing (no persistence): the 20 kept events are all it has.
            assertThat(untilReadable(() -> counter.count("alice"))).isEqualTo(20);
            assertThat(counter.pendingWrites()).isZero();
            assertThat(counter.increment("alice")).isEqualTo(21);
        }
    }

    @Test
    void aWriteThatTimedOutAfterRedisRanItIsNotCountedTwiceWhenSentAgain() throws Exception {
        try (RedisStore store = store()) {
            SlidingWindowCounter counter = SlidingWindowCounter.builder(store, "slow", Duration.ofMinutes(10))
                    .keyPrefix(redis.keyPrefix()).build();
            String redisKey = counter.redisKey("alice");
            assertThat(counter.increment("alice")).isEqualTo(1);

            // A script of another client keeps Redis busy past this client's 300 ms timeout. The
            // increment is sent, times out and is kept; Redis runs it once the busy script is done.
            Thread busy = new Thread(() -> redis.client().eval("local t0 = redis.call('TIME') "
                    + "repeat local t = redis.call('TIME') until (t[1] - t0[1]) * 1000000 + t[2] - t0[2] > 1000000"));
            busy.start();
            untilBusy();
            assertThat(counter.increment("alice")).as("timed out: kept, count unknown").isEqualTo(-1);
            busy.join();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!"2".equals(redis.client().hget(redisKey, currentSlot(redis.client().hgetAll(redisKey))))
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(counter.pendingWrites()).as("the kept write waits for the next call").isEqualTo(1);

            assertThat(untilReadable(() -> counter.count("alice"))).as("the replay ran once already").isEqualTo(2);
            assertThat(counter.pendingWrites()).isZero();
            assertThat(counter.increment("alice")).isEqualTo(3);
        }
    }

    /** Waits until Redis is running the busy script (a PING then takes longer than 100 ms). */
    private static void untilBusy() throws InterruptedException {
        try (RedisStore probe = RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofMillis(100))
                .build())) {
            SlidingWindowCounter ping = SlidingWindowCounter.builder(probe, "probe", Duration.ofMinutes(1))
                    .keyPrefix(redis.keyPrefix()).pendingLimit(0).build();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                try {
                    ping.count("x");
                    Thread.sleep(5);
                } catch (RedisFailureException busy) {
                    return;
                }
            }
            throw new AssertionError("Redis never got busy");
        }
    }

    /** The slot field of an event-counter hash (the one that is a number). */
    private static String currentSlot(java.util.Map<String, String> fields) {
        return fields.keySet().stream().filter(name -> name.matches("\\d+")).findFirst().orElse("none");
    }

    @Test
    void pastTheBoundTheOldestAreDroppedAndTheListenerHears() throws Exception {
        AtomicLong heard = new AtomicLong();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onCounterWritesDropped(String counterName, long dropped, long totalDropped) {
                heard.set(totalDropped);
            }
        };
        try (RedisStore store = store()) {
            DistinctCounter counter = DistinctCounter.builder(store, "names", Duration.ofMinutes(10))
                    .keyPrefix(redis.keyPrefix()).pendingLimit(5).listener(listener).build();

            redis.stop();
            for (int i = 0; i < 12; i++) {
                assertThat(counter.add("203.0.113.7", "user-" + i)).isEqualTo(-1);
            }
            assertThat(counter.pendingWrites()).isEqualTo(5);
            assertThat(heard.get()).isEqualTo(7);
            redis.start();

            assertThat(untilReadable(() -> counter.count("203.0.113.7"))).as("the 5 newest kept").isEqualTo(5);
            assertThat(counter.add("203.0.113.7", "user-new")).isEqualTo(6);
        }
    }
}
