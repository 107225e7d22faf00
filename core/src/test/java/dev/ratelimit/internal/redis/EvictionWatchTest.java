package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.CapturedErr;
import dev.ratelimit.internal.support.EvictionFinding;
import dev.ratelimit.internal.support.ServerIdentity;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * When the store's watch asks its masters and what it makes of their answers: due at once, then
 * every 5 minutes by an injected clock; one ERROR line per master and finding, a note for a master
 * that cannot say; keys evicted counted from the first reading, through a restart. The readings
 * come from a gateway of the test's own (what Redis answers is {@code EvictingRedisContract}'s, on
 * a real Redis). Lines and findings name each master as the server it said it is, from INFO server
 * texts captured from real servers; Redis while it has not said.
 */
class EvictionWatchTest {
    private static final String A = "127.0.0.1:7001";
    private static final String B = "127.0.0.1:7002";
    private static final String ERROR_LINE = "ERROR dev.ratelimit.RedisStore - Redis at ";

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final List<List<MemoryReading>> answers = new ArrayList<>();
    private int reads;

    /** Answers the readings queued, the last one again once the queue is down to it. */
    private final RedisGateway gateway = reading(() -> {
        reads++;
        return answers.size() > 1 ? answers.remove(0) : answers.get(0);
    });

    private final EvictionWatch watch = new EvictionWatch(gateway, nanos::get);

    /** A gateway that only reads memory: the watch asks nothing else. */
    private static RedisGateway reading(Supplier<List<MemoryReading>> readings) {
        return (RedisGateway) Proxy.newProxyInstance(RedisGateway.class.getClassLoader(), new Class<?>[] {RedisGateway.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("readMemory")) {
                        return readings.get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static MemoryReading read(String node, long maxmemory, String policy, long evicted) {
        return read(node, maxmemory, policy, evicted, "");
    }

    /** A reading whose INFO server says {@code server} ({@code name:value} lines). */
    private static MemoryReading read(String node, long maxmemory, String policy, long evicted, String server) {
        return MemoryReading.of(node, "cluster at x (node " + node + ")", "# Memory\r\nused_memory:1000\r\nmaxmemory:"
                + maxmemory + "\r\nmaxmemory_policy:" + policy + "\r\n", "# Stats\r\nevicted_keys:" + evicted + "\r\n",
                "# Server\r\n" + server);
    }

    /** INFO server as a real server answered it ({@code ServerIdentityTest}'s captures). */
    private static String infoServer(String server) {
        try (InputStream in = EvictionWatchTest.class.getResourceAsStream("/dev/ratelimit/internal/support/info-server/" + server
                + ".txt")) {
            assertThat(in).as(server).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void answer(MemoryReading... readings) {
        answers.add(Arrays.asList(readings));
    }

    private void minutesPass(long minutes) {
        nanos.addAndGet(TimeUnit.MINUTES.toNanos(minutes));
    }

    private static String logged(Runnable run) {
        try (CapturedErr err = new CapturedErr()) {
            run.run();
            return err.text();
        }
    }

    @Test
    void aMasterWithoutEvictionIsSafeAndLogsNothing() {
        answer(read(A, 1 << 30, "noeviction", 7));

        String log = logged(watch::checkIfDue);

        assertThat(log).isEmpty();
        EvictionFinding finding = watch.finding();
        assertThat(finding.finding()).isNull();
        assertThat(finding.maxmemoryPolicy()).isEqualTo("noeviction");
        assertThat(finding.evictedKeys()).as("counted from the first reading").isZero();
    }

    @Test
    void aPolicyThatEvictsWithoutMaxmemoryNeverEvicts() {
        answer(read(A, 0, "allkeys-lru", 0));

        String log = logged(watch::checkIfDue);

        assertThat(log).isEmpty();
        assertThat(watch.finding().finding()).isNull();
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("allkeys-lru without maxmemory");
    }

    @Test
    void anEvictingMasterIsOneErrorLineNotRepeatedEveryFiveMinutes() {
        answer(read(A, 1 << 30, "volatile-lru", 3));

        String log = logged(() -> {
            for (int i = 0; i < 5; i++) {
                watch.checkIfDue();
                minutesPass(5);
            }
        });

        assertThat(reads).as("read at once, then every 5 minutes").isEqualTo(5);
        assertThat(CapturedErr.count(log, ERROR_LINE)).as(log).isEqualTo(1);
        assertThat(log).contains("ERROR dev.ratelimit.RedisStore - Redis at cluster at x (node " + A + ") [EVICTING_REDIS]:"
                + " maxmemory-policy is volatile-lru with maxmemory 1073741824 bytes, so Redis may evict the rate"
                + " limiter's keys when its memory is full", "an evicted key forgets a client's count, so that client gets"
                + " its full limit again. Set maxmemory-policy noeviction on that Redis, or give the limiter a Redis of its"
                + " own.");
        assertThat(watch.finding().finding()).startsWith("Redis at cluster at x (node " + A + ") has maxmemory-policy"
                + " volatile-lru with maxmemory 1073741824 bytes: an evicted key forgets").contains(
                "Set maxmemory-policy noeviction");
        assertThat(watch.finding().evictedKeys()).isZero();
    }

    @Test
    void nothingIsReadBeforeTheIntervalHasPassed() {
        answer(read(A, 0, "noeviction", 0));
        watch.checkIfDue();

        nanos.addAndGet(EvictionWatch.CHECK_INTERVAL.toNanos() - 1);
        watch.checkIfDue();
        assertThat(reads).isEqualTo(1);

        nanos.incrementAndGet();
        watch.checkIfDue();
        assertThat(reads).isEqualTo(2);
    }

    @Test
    void evictionsAreCountedFromTheFirstReadingAndThroughARestart() {
        answer(read(A, 1 << 20, "allkeys-lru", 100));
        answer(read(A, 1 << 20, "allkeys-lru", 150));
        answer(read(A, 1 << 20, "allkeys-lru", 20));
        answer(read(A, 1 << 20, "allkeys-lru", 30));

        List<Long> counts = new ArrayList<>();
        String log = logged(() -> {
            for (int i = 0; i < 4; i++) {
                watch.checkIfDue();
                counts.add(watch.finding().evictedKeys());
                minutesPass(5);
            }
        });

        assertThat(counts).as("50, then 20 since the restart, then 10 more").containsExactly(0L, 50L, 70L, 80L);
        assertThat(CapturedErr.count(log, ERROR_LINE)).as("the policy, then the first evictions: " + log).isEqualTo(2);
        assertThat(log).contains("[EVICTING_REDIS]: Redis evicted 50 keys since the rate limiter started"
                + " (maxmemory-policy allkeys-lru), so limits were lost: an evicted key forgets a client's count");
        assertThat(watch.finding().finding()).contains("has maxmemory-policy allkeys-lru with maxmemory 1048576 bytes"
                + " and evicted 80 keys since the limiter started");
    }

    @Test
    void aChangedPolicyIsLoggedAgainAndNoevictionEndsTheFinding() {
        answer(read(A, 1 << 30, "volatile-lru", 0));
        answer(read(A, 1 << 30, "allkeys-lfu", 0));
        answer(read(A, 1 << 30, "noeviction", 0));

        String log = logged(() -> {
            for (int i = 0; i < 3; i++) {
                watch.checkIfDue();
                minutesPass(5);
            }
        });

        assertThat(CapturedErr.count(log, ERROR_LINE)).as(log).isEqualTo(2);
        assertThat(log).contains("maxmemory-policy is volatile-lru", "maxmemory-policy is allkeys-lfu",
                "INFO dev.ratelimit.RedisStore - Redis at cluster at x (node " + A + ") [EVICTING_REDIS]: maxmemory-policy"
                        + " is now noeviction: Redis no longer evicts the rate limiter's keys");
        assertThat(watch.finding().finding()).isNull();
    }

    @Test
    void aMasterThatMayNotRunInfoIsANoteAndUnknown() {
        MemoryReading refused = MemoryReading.refused(A, "redis://127.0.0.1:7001",
                "NOPERM User u has no permissions to run the 'info' command");
        answer(refused);

        String log = logged(() -> {
            watch.checkIfDue();
            minutesPass(5);
            watch.checkIfDue();
        });

        assertThat(log).doesNotContain("ERROR");
        assertThat(CapturedErr.count(log, "INFO dev.ratelimit.RedisStore - Redis at redis://127.0.0.1:7001"
                + " [EVICTING_REDIS]: cannot tell whether Redis may evict the rate limiter's keys: the user the limiter"
                + " connects as may not run INFO (NOPERM")).as("once: " + log).isEqualTo(1);
        assertThat(log).contains("grant it +info");
        assertThat(watch.finding().finding()).isNull();
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("unknown");
        assertThat(watch.finding().evictedKeys()).isEqualTo(-1);
    }

    @Test
    void aRefusalThatIsNotAboutInfoGetsNoAdviceAboutInfo() {
        answer(MemoryReading.refused(A, "redis://****@127.0.0.1:7001", "WRONGPASS invalid username-password pair"));

        String log = logged(watch::checkIfDue);

        assertThat(log).doesNotContain("ERROR").doesNotContain("+info").contains("[EVICTING_REDIS]: cannot tell whether"
                + " Redis may evict the rate limiter's keys: Redis refused INFO (WRONGPASS invalid username-password pair)");
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("unknown");
    }

    @Test
    void anEmptyPolicyIsANoteAndUnknown() {
        answer(read(A, 1 << 30, "", 0));

        String log = logged(watch::checkIfDue);

        assertThat(log).doesNotContain("ERROR").contains("[EVICTING_REDIS]: cannot tell whether Redis may evict the rate"
                + " limiter's keys: INFO memory reports no maxmemory_policy");
        assertThat(watch.finding().finding()).isNull();
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("unknown");
    }

    @Test
    void everyMasterIsJudgedOnItsOwnAndOnlyTheEvictingOneIsNamed() {
        answer(read(A, 1 << 30, "noeviction", 0), read(B, 1 << 30, "volatile-lru", 0));

        String log = logged(watch::checkIfDue);

        assertThat(CapturedErr.count(log, ERROR_LINE)).isEqualTo(1);
        assertThat(log).contains("(node " + B + ") [EVICTING_REDIS]").doesNotContain(A);
        assertThat(watch.finding().finding()).contains(B).doesNotContain(A);
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("noeviction on cluster at x (node " + A + "); volatile-lru"
                + " on cluster at x (node " + B + ")");
    }

    @Test
    void whatAMasterEvictedStaysCountedOnceItIsNoLongerOne() {
        answer(read(A, 1 << 20, "noeviction", 10), read(B, 1 << 20, "noeviction", 0));
        answer(read(A, 1 << 20, "noeviction", 14), read(B, 1 << 20, "noeviction", 0));
        answer(read(B, 1 << 20, "noeviction", 0));

        for (int i = 0; i < 3; i++) {
            watch.checkIfDue();
            minutesPass(5);
        }

        assertThat(watch.finding().evictedKeys()).isEqualTo(4);
        assertThat(watch.finding().finding()).contains("Redis masters no longer in use evicted 4 keys");
    }

    @Test
    void redisNotReachedAtStartIsUnknownWithoutAFailureAndAskedAgainSooner() {
        answer(MemoryReading.unreached(A, "redis://127.0.0.1:7001", "Connection refused"));
        answer(read(A, 1 << 30, "volatile-lru", 0));

        String log = logged(watch::checkIfDue);

        assertThat(log).isEmpty();
        assertThat(watch.finding().finding()).isNull();
        assertThat(watch.finding().maxmemoryPolicy()).isEqualTo("unknown");
        assertThat(watch.finding().evictedKeys()).isEqualTo(-1);
        nanos.addAndGet(EvictionWatch.RETRY_INTERVAL.toNanos() - 1);
        watch.checkIfDue();
        assertThat(reads).isEqualTo(1);
        nanos.incrementAndGet();
        watch.checkIfDue();
        assertThat(reads).isEqualTo(2);
        assertThat(watch.finding().finding()).contains("volatile-lru");
    }

    @Test
    void aFailingReadNeverFailsTheCallerAndIsTriedAgainLater() {
        List<Supplier<List<MemoryReading>>> plan = new ArrayList<>();
        plan.add(() -> {
            throw new IllegalStateException("a bug in a gateway");
        });
        plan.add(() -> Collections.singletonList(read(A, 0, "noeviction", 0)));
        EvictionWatch failingWatch = new EvictionWatch(reading(() -> plan.remove(0).get()), nanos::get);

        String log = logged(() -> assertThatCode(failingWatch::checkIfDue).doesNotThrowAnyException());

        assertThat(log).contains("WARN dev.ratelimit.RedisStore - Cannot tell whether Redis may evict the rate limiter's"
                + " keys", "a bug in a gateway");
        minutesPass(5);
        failingWatch.checkIfDue();
        assertThat(failingWatch.finding().maxmemoryPolicy()).isEqualTo("noeviction");
    }

    @Test
    void aGatewayThatReadsNoInfoLeavesItUnknown() {
        EvictionWatch fake = new EvictionWatch(new InMemoryRedisGateway(), nanos::get);

        fake.checkIfDue();

        assertThat(fake.finding()).isSameAs(EvictionFinding.UNKNOWN);
    }

    @Test
    void aValkeyMasterIsNamedValkeyWithItsOwnVersionInTheLineAndTheFinding() {
        answer(read(A, 1 << 30, "volatile-lru", 0, infoServer("valkey-9.1.2")));
        answer(read(A, 1 << 30, "volatile-lru", 12, infoServer("valkey-9.1.2")));

        String log = logged(() -> {
            watch.checkIfDue();
            minutesPass(5);
            watch.checkIfDue();
        });

        String where = "cluster at x (node " + A + ")";
        assertThat(log).contains("ERROR dev.ratelimit.RedisStore - Valkey 9.1.2 at " + where + " [EVICTING_REDIS]:"
                + " maxmemory-policy is volatile-lru with maxmemory 1073741824 bytes, so Valkey may evict the rate"
                + " limiter's keys when its memory is full", "Set maxmemory-policy noeviction on that Valkey, or give the"
                + " limiter a Valkey of its own.", "ERROR dev.ratelimit.RedisStore - Valkey 9.1.2 at " + where
                + " [EVICTING_REDIS]: Valkey evicted 12 keys since the rate limiter started");
        assertThat(log.replace("EVICTING_REDIS", "")).as("nothing says Redis of a Valkey").doesNotContain("Redis ")
                .doesNotContain("7.2.4");
        EvictionFinding finding = watch.finding();
        assertThat(finding.finding()).startsWith("Valkey 9.1.2 at " + where + " has maxmemory-policy volatile-lru")
                .endsWith("Set maxmemory-policy noeviction on that Valkey, or give the limiter a Valkey of its own");
        assertThat(finding.server()).isEqualTo("Valkey 9.1.2");
        assertThat(finding.servers()).containsExactly(entry(A, ServerIdentity.fromInfo(infoServer("valkey-9.1.2"))));
    }

    @Test
    void aRedisMasterIsNamedWithItsVersion() {
        answer(read(A, 1 << 30, "allkeys-lru", 0, infoServer("redis-7.0.15")));

        String log = logged(watch::checkIfDue);

        assertThat(log).contains("ERROR dev.ratelimit.RedisStore - Redis 7.0.15 at cluster at x (node " + A + ")"
                + " [EVICTING_REDIS]: maxmemory-policy is allkeys-lru", "so Redis may evict", "on that Redis, or give the"
                + " limiter a Redis of its own.");
        assertThat(watch.finding().server()).isEqualTo("Redis 7.0.15");
    }

    @Test
    void mastersOfDifferentServersAreEachNamedAndTheAdviceSaysServer() {
        answer(read(A, 1 << 30, "volatile-lru", 0, infoServer("redis-8.0.6")),
                read(B, 1 << 30, "volatile-lru", 0, infoServer("valkey-8.0.1")));

        logged(watch::checkIfDue);

        EvictionFinding finding = watch.finding();
        assertThat(finding.server()).isEqualTo("Redis 8.0.6 on cluster at x (node " + A + "); Valkey 8.0.1 on cluster"
                + " at x (node " + B + ")");
        assertThat(finding.servers().keySet()).containsExactly(A, B);
        assertThat(finding.finding()).contains("Redis 8.0.6 at cluster at x (node " + A + ") has", "; Valkey 8.0.1 at"
                + " cluster at x (node " + B + ") has").endsWith("Set maxmemory-policy noeviction on that server, or give"
                + " the limiter a server of its own");
    }

    @Test
    void aMasterThatSaidWhichItIsKeepsItsNameWhenItLaterRefusesInfo() {
        answer(read(A, 1 << 30, "noeviction", 0, infoServer("valkey-9.1.2")));
        answer(MemoryReading.refused(A, "valkey://x", "NOPERM User u has no permissions to run the 'info' command"));

        String log = logged(() -> {
            watch.checkIfDue();
            minutesPass(5);
            watch.checkIfDue();
        });

        assertThat(log).contains("INFO dev.ratelimit.RedisStore - Valkey 9.1.2 at cluster at x (node " + A + ")"
                + " [EVICTING_REDIS]: cannot tell whether Valkey may evict the rate limiter's keys: the user the limiter"
                + " connects as may not run INFO (NOPERM User u has no permissions to run the 'info' command): grant it"
                + " +info (ACL SETUSER <user> +info) to have this checked, or make sure maxmemory-policy is noeviction on"
                + " that Valkey");
        assertThat(watch.finding().server()).isEqualTo("Valkey 9.1.2");
    }

    @Test
    void aMasterThatNeverSaidIsUnknownAndNamedRedis() {
        answer(MemoryReading.refused(A, "redis://127.0.0.1:7001", "NOPERM User u has no permissions to run the 'info'"
                + " command"));

        logged(watch::checkIfDue);

        assertThat(watch.finding().server()).isEqualTo("unknown");
        assertThat(watch.finding().servers()).containsExactly(entry(A, ServerIdentity.UNKNOWN));
        assertThat(EvictionFinding.UNKNOWN.server()).isEqualTo("unknown");
        assertThat(EvictionFinding.UNKNOWN.servers()).isEmpty();
    }
}
