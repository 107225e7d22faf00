package dev.ratelimit.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;

/** The peer adapters against a real Redis: they limit, per key, across instances, and clean up after themselves. */
class PeerLimitersIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long LIMIT = 5;
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final int POOL_SIZE = 8;
    /** Upper bound for waits on asynchronous clean-up (closing sockets, stopping threads). */
    private static final Duration SETTLE = Duration.ofSeconds(15);

    /** The adapters, each with where it keeps a client key in Redis and how long that may live. */
    enum Peer {
        BUCKET4J {
            @Override
            BenchLimiter create(String uri, String keyPrefix) {
                return Bucket4jLimiter.create(uri, LIMIT, WINDOW, POOL_SIZE, keyPrefix);
            }

            @Override
            List<String> redisKeys(String keyPrefix, String key) {
                return List.of(keyPrefix + key);
            }

            @Override
            Duration maxTimeToLive() {
                return WINDOW.plus(Bucket4jLimiter.KEEP_AFTER_REFILL);
            }

            @Override
            String clientName(BenchLimiter limiter) {
                return ((Bucket4jLimiter) limiter).clientName();
            }
        },
        REDISSON {
            @Override
            BenchLimiter create(String uri, String keyPrefix) {
                return RedissonLimiter.create(uri, LIMIT, WINDOW, POOL_SIZE, keyPrefix);
            }

            @Override
            List<String> redisKeys(String keyPrefix, String key) {
                String name = keyPrefix + key;
                return List.of(name, "{" + name + "}:value", "{" + name + "}:permits");
            }

            @Override
            Duration maxTimeToLive() {
                return WINDOW.plus(RedissonLimiter.KEEP_ALIVE_MARGIN);
            }

            @Override
            String clientName(BenchLimiter limiter) {
                return ((RedissonLimiter) limiter).clientName();
            }
        },
        NAIVE {
            @Override
            BenchLimiter create(String uri, String keyPrefix) {
                return NaiveSortedSetLimiter.create(uri, LIMIT, WINDOW, POOL_SIZE, keyPrefix);
            }

            @Override
            List<String> redisKeys(String keyPrefix, String key) {
                return List.of(keyPrefix + key);
            }

            @Override
            Duration maxTimeToLive() {
                return WINDOW;
            }

            @Override
            String clientName(BenchLimiter limiter) {
                return ((NaiveSortedSetLimiter) limiter).clientName();
            }
        };

        abstract BenchLimiter create(String uri, String keyPrefix);

        /** Every Redis key the limiter writes for {@code key}. */
        abstract List<String> redisKeys(String keyPrefix, String key);

        abstract Duration maxTimeToLive();

        abstract String clientName(BenchLimiter limiter);

        String prefix(String test) {
            return redis.key(name().toLowerCase(Locale.ROOT) + ":" + test + ":");
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void admitsTheLimitThenDenies(Peer peer) {
        try (BenchLimiter limiter = peer.create(redis.uri(), peer.prefix("limit"))) {
            assertThat(limiter.name()).isNotBlank();
            for (int i = 1; i <= LIMIT; i++) {
                assertThat(limiter.tryAcquire("client")).as("call %d of %d", i, LIMIT).isTrue();
            }
            assertThat(limiter.tryAcquire("client")).as("call %d", LIMIT + 1).isFalse();
            assertThat(limiter.tryAcquire("client")).as("call %d", LIMIT + 2).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void distinctKeysAreIndependent(Peer peer) {
        try (BenchLimiter limiter = peer.create(redis.uri(), peer.prefix("distinct"))) {
            for (int i = 0; i < LIMIT; i++) {
                assertThat(limiter.tryAcquire("a")).isTrue();
            }
            assertThat(limiter.tryAcquire("a")).isFalse();
            for (int i = 0; i < LIMIT; i++) {
                assertThat(limiter.tryAcquire("b")).as("b, call %d", i + 1).isTrue();
            }
            assertThat(limiter.tryAcquire("b")).isFalse();
            assertThat(limiter.tryAcquire("a")).isFalse();
            assertThat(limiter.tryAcquire("c")).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void instancesShareTheStateInRedis(Peer peer) {
        String prefix = peer.prefix("shared");
        try (BenchLimiter first = peer.create(redis.uri(), prefix);
                BenchLimiter second = peer.create(redis.uri(), prefix)) {
            for (int i = 0; i < 3; i++) {
                assertThat(first.tryAcquire("client")).isTrue();
            }
            assertThat(second.tryAcquire("client")).isTrue();
            assertThat(second.tryAcquire("client")).isTrue();
            assertThat(second.tryAcquire("client")).isFalse();
            assertThat(first.tryAcquire("client")).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void everyKeyWrittenExpires(Peer peer) {
        String prefix = peer.prefix("ttl");
        try (BenchLimiter limiter = peer.create(redis.uri(), prefix)) {
            for (int i = 0; i <= LIMIT; i++) {
                limiter.tryAcquire("client");
            }
        }
        for (String key : peer.redisKeys(prefix, "client")) {
            long ttl = redis.client().pttl(key);
            assertThat(ttl).as("PTTL %s", key).isPositive().isLessThanOrEqualTo(peer.maxTimeToLive().toMillis());
        }
        assertThat(redis.keys()).as("keys under the test prefix").allMatch(k -> redis.client().pttl(k) > 0);
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void closeReleasesConnectionsAndThreads(Peer peer) throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        BenchLimiter limiter = peer.create(redis.uri(), peer.prefix("close"));
        String clientName = peer.clientName(limiter);
        // Several threads at once, so that the pool opens more than one connection.
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                calls.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 20; i++) {
                        limiter.tryAcquire("client-" + thread + "-" + i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(connectionsNamed(clientName)).as("connections of %s while open", clientName).isPositive();

        limiter.close();

        awaitTrue(() -> connectionsNamed(clientName) == 0,
                () -> "connections named " + clientName + " still open: " + connectionsNamed(clientName));
        awaitTrue(() -> leftoverThreads(before).isEmpty(),
                () -> "threads left after close(): " + leftoverThreads(before));
        limiter.close(); // idempotent
    }

    @Test
    void redissonSetsTheRateAgainWhenItsKeysExpired() {
        String prefix = Peer.REDISSON.prefix("expired");
        try (RedissonLimiter limiter = RedissonLimiter.create(redis.uri(), LIMIT, WINDOW, POOL_SIZE, prefix)) {
            assertThat(limiter.keepAlive()).isEqualTo(WINDOW.plus(RedissonLimiter.KEEP_ALIVE_MARGIN));
            for (int i = 0; i < LIMIT; i++) {
                assertThat(limiter.tryAcquire("client")).isTrue();
            }
            assertThat(limiter.tryAcquire("client")).isFalse();
            // What keepAliveTime does to an idle limiter, while this JVM still caches its RRateLimiter.
            redis.client().del(Peer.REDISSON.redisKeys(prefix, "client").toArray(new String[0]));
            for (int i = 0; i < LIMIT; i++) {
                assertThat(limiter.tryAcquire("client")).as("call %d after expiry", i + 1).isTrue();
            }
            assertThat(limiter.tryAcquire("client")).isFalse();
        }
    }

    @Test
    void naiveCountsItsRejectedRequestsToo() {
        String prefix = Peer.NAIVE.prefix("flaw");
        try (BenchLimiter limiter = Peer.NAIVE.create(redis.uri(), prefix)) {
            for (int i = 0; i < LIMIT + 3; i++) {
                limiter.tryAcquire("client");
            }
        }
        assertThat(redis.client().zcard(prefix + "client")).isEqualTo(LIMIT + 3);
    }

    /** How many connections the server has whose {@code CLIENT SETNAME} is {@code name}. */
    private static long connectionsNamed(String name) {
        Object reply = redis.client().executeCommand(new CommandArguments(Protocol.Command.CLIENT).add("LIST"));
        String list = reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
        return list.lines().filter(line -> (" " + line + " ").contains(" name=" + name + " ")).count();
    }

    /**
     * Live threads started since {@code before} that would keep a JVM alive (non-daemon), and any thread of
     * Redisson's at all.
     */
    private static List<String> leftoverThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().toLowerCase(Locale.ROOT).contains("redisson")
                        || (!t.isDaemon() && !before.contains(t)))
                .map(t -> t.getName() + (t.isDaemon() ? " (daemon)" : ""))
                .sorted()
                .collect(Collectors.toList());
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure.get() + " (waited " + SETTLE.toSeconds() + " s)");
            }
            Thread.sleep(50);
        }
    }
}
