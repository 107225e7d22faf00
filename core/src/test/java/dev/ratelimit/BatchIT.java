package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * {@link RateLimiter#tryAcquireAll} on a standalone Redis, behind a {@link FaultProxy}: one round
 * trip for a whole batch, script flushes racing with batches, the deny cache and the failure policy
 * per key, and the checks done before anything is sent.
 */
class BatchIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final AtomicInteger POLICIES = new AtomicInteger();

    private FaultProxy proxy;
    private RedisStore store;

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.host(), redis.port());
        store = RedisStore.connect(RedisSettings.builder(proxy.redisUri()).timeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void close() {
        store.close();
        proxy.close();
    }

    private RateLimiterBuilder limiter(Algorithm algorithm, long limit) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("batch-" + POLICIES.incrementAndGet())
                .rule(Rule.of(algorithm, limit, Duration.ofHours(1)));
    }

    private static List<String> keys(int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add("k" + i);
        }
        return keys;
    }

    /**
     * 100 ms each way: a single decision costs one 200 ms round trip, and 100 of them one after
     * another would cost 20 s. The batch of 100 must take less than three round trips.
     */
    @Test
    void aBatchOfAHundredKeysTakesOneRoundTripNotAHundred() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, 10).localDenyCache(false).build();
        limiter.tryAcquire("warm-up"); // opens the connection and loads the script
        proxy.latency(Duration.ofMillis(100));

        long start = System.nanoTime();
        assertThat(limiter.tryAcquire("single").allowed()).isTrue();
        long single = System.nanoTime() - start;
        start = System.nanoTime();
        List<Decision> decisions = limiter.tryAcquireAll(keys(100));
        long batch = System.nanoTime() - start;

        System.err.printf("BatchIT: one decision %d ms, a batch of 100 %d ms behind 100 ms latency each way%n",
                single / 1_000_000, batch / 1_000_000);
        assertThat(decisions).hasSize(100).allSatisfy(decision -> {
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.degraded()).isFalse();
        });
        assertThat(Duration.ofNanos(single)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(Duration.ofNanos(batch)).isLessThan(Duration.ofMillis(600));
    }

    /**
     * SCRIPT FLUSH in a loop while batches run: calls answered NOSCRIPT go out again with EVAL
     * (nothing ran), so no key is degraded and each admits exactly its limit. A pipeline whose calls
     * are only partly answered NOSCRIPT is {@code PipelinedBatchIT}'s.
     */
    @Test
    void scriptFlushesRacingWithBatchesLeaveEveryKeyExact() throws Exception {
        RateLimiter limiter = limiter(Algorithm.SLIDING_LOG, 10).localDenyCache(false).build();
        List<String> keys = keys(50);
        long evalsBefore = redis.calls("eval");
        AtomicBoolean flushing = new AtomicBoolean(true);
        AtomicInteger flushes = new AtomicInteger();
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        Future<?> flush = flusher.submit(() -> {
            try (Jedis admin = new Jedis(redis.host(), redis.port())) {
                while (flushing.get()) {
                    admin.scriptFlush();
                    flushes.incrementAndGet();
                }
            }
            return null;
        });
        Map<String, Integer> admitted = new HashMap<>();
        try {
            for (int round = 0; round < 30; round++) {
                List<Decision> decisions = limiter.tryAcquireAll(keys);
                for (int k = 0; k < keys.size(); k++) {
                    assertThat(decisions.get(k).degraded()).as("round %d, %s", round, keys.get(k)).isFalse();
                    admitted.merge(keys.get(k), decisions.get(k).allowed() ? 1 : 0, Integer::sum);
                }
            }
        } finally {
            flushing.set(false);
            flush.get(10, TimeUnit.SECONDS);
            flusher.shutdown();
        }
        assertThat(admitted).hasSize(50).allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(10));
        long resent = redis.calls("eval") - evalsBefore;
        System.err.printf("BatchIT: %d script flushes, %d calls resent with EVAL%n", flushes.get(), resent);
        assertThat(resent).as("calls resent with EVAL after NOSCRIPT").isPositive();
    }

    /**
     * A denial the deny cache remembers is answered without Redis, even while Redis is away; the
     * other keys of the same batch go to the failure policy, each on its own.
     */
    @Test
    void cachedDenialsAnswerWithoutRedisAndTheOthersGetTheFailurePolicy() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, 2).onRedisFailure(FailurePolicy.ALLOW)
                .listener(listener).build();
        Map<String, Long> batch = new LinkedHashMap<>();
        batch.put("spent", 2L);
        batch.put("fresh", 1L);
        assertThat(limiter.tryAcquireAll(batch).get("spent").allowed()).isTrue();
        batch.put("fresh", 1L);
        Map<String, Decision> second = limiter.tryAcquireAll(batch);
        assertThat(second.get("spent").allowed()).isFalse();
        assertThat(second.get("fresh").remaining()).isZero();

        proxy.refuse();
        Map<String, Decision> third = limiter.tryAcquireAll(batch);

        assertThat(third.keySet()).containsExactly("spent", "fresh");
        assertThat(third.get("spent").allowed()).isFalse();
        assertThat(third.get("spent").degraded()).as("the cached denial").isFalse();
        assertThat(third.get("fresh").allowed()).isTrue();
        assertThat(third.get("fresh").degraded()).isTrue();
        assertThat(limiter.stats().localCacheDenials()).isEqualTo(1);
        assertThat(limiter.redisFailures()).isEqualTo(1);
        assertThat(listener.allowed).hasSize(4);
        assertThat(listener.denied).hasSize(2);
        assertThat(listener.failures).hasSize(1);
    }

    @Test
    void withoutAFailurePolicyAFailureIsThrown() {
        RateLimiter limiter = limiter(Algorithm.GCRA, 2).build();
        proxy.refuse();
        assertThatThrownBy(() -> limiter.tryAcquireAll(keys(3))).isInstanceOf(RedisFailureException.class);
        assertThat(limiter.redisFailures()).isEqualTo(3);
    }

    @Test
    void badEntriesAreNamedAndNothingIsTaken() {
        RateLimiter limiter = limiter(Algorithm.SLIDING_WINDOW, 5).build();
        Map<String, Long> batch = new LinkedHashMap<>();
        batch.put("good", 1L);
        batch.put("bad", 6L);
        assertThatThrownBy(() -> limiter.tryAcquireAll(batch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits for key 'bad' must be between 1 and 5 (the capacity of rule "
                        + limiter.rules().get(0).name() + "), but was 6");
        batch.put("bad", null);
        assertThatThrownBy(() -> limiter.tryAcquireAll(batch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("permits for key 'bad' must be between 1 and 5").hasMessageEndingWith("but was null");
        batch.remove("bad");
        batch.put(null, 1L);
        assertThatThrownBy(() -> limiter.tryAcquireAll(batch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a key of permitsByKey must be a non-empty string, but was null");
        assertThatThrownBy(() -> limiter.tryAcquireAll(List.of("a", ""))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys[1] must be a non-empty string, but was ''");
        assertThatThrownBy(() -> limiter.tryAcquireAll((Map<String, Long>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permitsByKey");

        assertThat(limiter.peek("good").remaining()).as("nothing taken").isEqualTo(5);
        assertThat(limiter.tryAcquireAll(Collections.<String, Long>emptyMap())).isEmpty();
        assertThat(limiter.stats().allowed() + limiter.stats().denied()).isZero();
    }

    @Test
    void theTransactionTransportIsRefused() {
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, 5).transport(Transport.TRANSACTION).build();
        assertThatThrownBy(() -> limiter.tryAcquireAll(List.of("a"))).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("tryAcquireAll needs transport 'lua', but this limiter uses transport 'transaction' (its "
                        + "MULTI/EXEC counter may need several round trips per client, so it is not batched); call "
                        + "tryAcquire for each key instead");
        assertThat(limiter.peek("a").remaining()).isEqualTo(5);
    }
}
