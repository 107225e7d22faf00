package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.http.status.StatusReport;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.AclUsers;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerProduct;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * A Redis that may evict the limiter's keys ({@code maxmemory} set, a {@code maxmemory-policy} other
 * than {@code noeviction}) is named once per store: one ERROR line with {@code [EVICTING_REDIS]},
 * the limiter's stats, its JMX bean and the status page's verdict. A Redis that never evicts changes
 * nothing; keys it does evict are counted; a user that may not run INFO is a note; a Redis down at
 * start fails nothing. Lines, stats, JMX and the status page name the server as its INFO server says
 * ({@code Redis 7.0.15}; {@code Valkey 9.1.2} on Valkey), read in the same round trip, and
 * {@code unknown} for a user that may not run INFO. Each implementation starts a Redis of its own,
 * whose configuration the tests change (every test starts from {@code noeviction}); the watch's
 * clock is the test's.
 */
abstract class EvictingRedisContract {
    private static final String WEBAPP = "/evicting";

    abstract RedisServerExtension redis();

    /** A user of the same Redis that may run everything but INFO. */
    abstract AclUser noInfo();

    private final AtomicLong nanos = new AtomicLong(System.nanoTime());
    private final RedisStoreRegistry registry = new RedisStoreRegistry(settings -> RedisStore.connect(settings, nanos::get));
    private final List<PolicyRuntime> runtimes = new ArrayList<>();

    @BeforeEach
    void neverEvicting() {
        config("maxmemory-policy", "noeviction");
        config("maxmemory", "0");
    }

    @AfterEach
    void stopPolicies() {
        runtimes.forEach(PolicyRuntime::close);
        redis().client().flushAll();
    }

    private void config(String name, String value) {
        redis().client().configSet(name, value);
    }

    private PolicyRuntime start(String policyName, String... pairs) {
        Map<String, String> settings = new HashMap<>();
        settings.put("redisUri", redis().uri());
        settings.put("keyPrefix", redis().keyPrefix());
        settings.put("limit", "100");
        settings.put("window", "1m");
        settings.put("policyName", policyName);
        for (int i = 0; i < pairs.length; i += 2) {
            settings.put(pairs[i], pairs[i + 1]);
        }
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName(policyName, "the filter-name")
                .parse(settings);
        PolicyRuntime runtime = PolicyRuntime.start(policy, registry, WEBAPP);
        runtimes.add(runtime);
        return runtime;
    }

    private static void requests(PolicyRuntime runtime, int count) {
        for (int i = 0; i < count; i++) {
            assertThat(runtime.pipeline().before(new FakeRequest()).denied()).isFalse();
        }
    }

    private String json(PolicyRuntime runtime) {
        return StatusReport.of(WEBAPP, Collections.singletonList(runtime)).json();
    }

    /** {@code Redis} or {@code Valkey}, as advice calls this server. */
    private String product() {
        return server().substring(0, server().indexOf(' '));
    }

    /** How the limiter must name this Redis: {@code Redis 7.0.15}, {@code Valkey 9.1.2}. */
    String server() {
        return ServerProduct.named(redis().client().info("server"));
    }

    private String errorLine() {
        return "ERROR dev.ratelimit.RedisStore - " + server() + " at " + redis().uri() + " [EVICTING_REDIS]: ";
    }

    private long evictedKeys() {
        String stats = redis().client().info("stats");
        return Long.parseLong(stats.replaceAll("(?s).*\\bevicted_keys:(\\d+).*", "$1"));
    }

    @Test
    void aRedisThatNeverEvictsLogsNothingAndLeavesTheVerdictAsItWas() {
        String log;
        PolicyRuntime api;
        try (CapturedErr err = new CapturedErr()) {
            api = start("safe");
            requests(api, 3);
            log = err.text();
        }

        assertThat(log).doesNotContain("EVICTING_REDIS");
        RateLimiterStats stats = api.limiter().stats();
        assertThat(stats.redisEviction()).isNull();
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("noeviction");
        assertThat(stats.redisEvictedKeys()).isZero();
        assertThat(stats.redisServer()).isEqualTo(server());
        assertThat(stats.redisServers()).hasSize(1).containsValue(server());
        assertThat(json(api)).contains("\"verdict\":{\"level\":\"ok\",\"text\":\"working: ")
                .contains("\"redisEviction\":{\"finding\":null,\"maxmemoryPolicy\":\"noeviction\",\"evictedKeys\":0,"
                        + "\"server\":\"" + server() + "\",\"nodes\":[{\"node\":\"" + stats.redisServers().keySet().iterator()
                        .next() + "\",\"server\":\"" + server() + "\"}]}");
        assertThat(StatusReport.of(WEBAPP, Collections.singletonList(api)).html()).contains(
                "<tr><th>Redis server</th><td>" + server() + "</td></tr>");
    }

    @Test
    void theServerIsNamedAsItsInfoServerSaysOnThePage() {
        PolicyRuntime api = start("named");
        requests(api, 1);

        String named = api.limiter().stats().redisServer();
        assertThat(named).matches("(Redis|Valkey) \\d+\\.\\d+\\.\\d+.*").isEqualTo(server());
        if (named.startsWith("Redis ")) {
            assertThat(named).isEqualTo("Redis " + redis().serverVersion());
        }
        assertThat(json(api)).contains("\"server\":\"" + named + "\"");
    }

    @Test
    void aRedisThatMayEvictIsOneErrorLinePerStoreAndShownByStatsJmxAndTheVerdict() throws Exception {
        config("maxmemory-policy", "volatile-lru");
        config("maxmemory", "1gb");
        String log;
        PolicyRuntime api;
        try (CapturedErr err = new CapturedErr()) {
            api = start("api");
            PolicyRuntime search = start("search", "tiers", "partner:500", "tierFrom", "header:X-Tier");
            requests(api, 3);
            requests(search, 3);
            nanos.addAndGet(EvictionWatch.CHECK_INTERVAL.toNanos() + 1);
            requests(api, 1);
            requests(search, 1);
            log = err.text();
        }

        assertThat(CapturedErr.count(log, "EVICTING_REDIS")).as("one line for the store, not one per limiter nor per"
                + " reading: " + log).isEqualTo(1);
        assertThat(log).contains(errorLine() + "maxmemory-policy is volatile-lru with maxmemory 1073741824 bytes, so " + product()
                + " may evict the rate limiter's keys when its memory is full (every key the limiter writes has a TTL): an"
                + " evicted key forgets a client's count, so that client gets its full limit again. Set maxmemory-policy"
                + " noeviction on that " + product() + ", or give the limiter a " + product() + " of its own.");
        RateLimiterStats stats = api.limiter().stats();
        assertThat(stats.redisEviction()).startsWith(server() + " at " + redis().uri() + " has maxmemory-policy volatile-lru with"
                + " maxmemory 1073741824 bytes: an evicted key forgets a client's count").contains(
                "Set maxmemory-policy noeviction on that " + product());
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("volatile-lru");
        assertThat(stats.redisEvictedKeys()).isZero();

        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = RateLimiterJmx.name(WEBAPP, "api", 1);
        assertThat(jmx.getAttribute(bean, "RedisEviction")).isEqualTo(stats.redisEviction());
        assertThat(jmx.getAttribute(bean, "RedisEvictedKeys")).isEqualTo(0L);
        assertThat(jmx.getAttribute(bean, "RedisMaxmemoryPolicy")).isEqualTo("volatile-lru");
        assertThat(jmx.getAttribute(bean, "RedisServer")).isEqualTo(server());

        assertThat(json(api)).contains("\"verdict\":{\"level\":\"warning\",\"text\":\"Redis may evict the limiter's keys"
                + " (EVICTING_REDIS): " + server() + " at " + redis().uri() + " has maxmemory-policy volatile-lru")
                .contains("\"maxmemoryPolicy\":\"volatile-lru\",\"evictedKeys\":0,\"server\":\"" + server() + "\"");
        assertThat(StatusReport.of(WEBAPP, Collections.singletonList(api)).html()).contains(
                "<tr><th>Redis eviction</th><td>" + server() + " at " + redis().uri() + " has maxmemory-policy volatile-lru");
    }

    @Test
    void keysRedisEvictsAreCountedSinceStartAndTheVerdictIsAnAlert() {
        long used = Long.parseLong(redis().client().info("memory").replaceAll("(?s).*\\bused_memory:(\\d+).*", "$1"));
        config("maxmemory-policy", "volatile-lru");
        config("maxmemory", Long.toString(used + 4 * 1024 * 1024));
        long before = evictedKeys();
        String log;
        PolicyRuntime api;
        long filled;
        long after;
        try (CapturedErr err = new CapturedErr()) {
            api = start("filled");
            requests(api, 1);
            filled = fillUntilEvicted(before);
            nanos.addAndGet(EvictionWatch.CHECK_INTERVAL.toNanos() + 1);
            requests(api, 1);
            after = evictedKeys();
            log = err.text();
        }

        long counted = api.limiter().stats().redisEvictedKeys();
        assertThat(counted).as("evicted_keys now minus at the first reading").isBetween(filled - before, after - before);
        assertThat(CapturedErr.count(log, errorLine())).as("the policy, then the first evictions: " + log).isEqualTo(2);
        assertThat(log).contains(errorLine() + product() + " evicted " + counted + " keys since the rate limiter started"
                + " (maxmemory-policy volatile-lru), so limits were lost: an evicted key forgets a client's count");
        assertThat(api.limiter().stats().redisEviction()).contains("and evicted " + counted + " keys since the limiter"
                + " started");
        assertThat(json(api)).contains("\"verdict\":{\"level\":\"alert\",\"text\":\"Redis evicted " + counted + " keys since"
                + " start (EVICTING_REDIS): " + server() + " at " + redis().uri() + " has maxmemory-policy volatile-lru")
                .contains("Set maxmemory-policy noeviction on that " + product())
                .contains("\"evictedKeys\":" + counted + ",\"server\":\"" + server() + "\"");
    }

    /**
     * Writes junk keys with a TTL (as the limiter's have) until Redis has evicted some.
     *
     * @return evicted_keys then
     */
    private long fillUntilEvicted(long before) {
        char[] kilobyte = new char[1024];
        Arrays.fill(kilobyte, 'x');
        String value = new String(kilobyte);
        for (int batch = 0; batch < 200; batch++) {
            try (AbstractPipeline pipeline = redis().client().pipelined()) {
                for (int i = 0; i < 500; i++) {
                    pipeline.set(redis().keyPrefix() + "junk:" + batch + ":" + i, value, SetParams.setParams().px(3_600_000));
                }
            }
            long evicted = evictedKeys();
            if (evicted > before + 100) {
                return evicted;
            }
        }
        throw new AssertionError("Redis evicted nothing after 100,000 keys of 1 KB: " + redis().client().info("memory"));
    }

    @Test
    void aUserThatMayNotRunInfoIsANoteNotAnErrorAndUnknown() {
        config("maxmemory-policy", "volatile-lru");
        config("maxmemory", "1gb");
        String log;
        PolicyRuntime api;
        try (CapturedErr err = new CapturedErr()) {
            api = start("noinfo", "redisUri", noInfo().uri());
            requests(api, 2);
            log = err.text();
        }

        assertThat(log).doesNotContain("ERROR");
        assertThat(CapturedErr.count(log, "[EVICTING_REDIS]: cannot tell whether Redis may evict the rate limiter's keys:"
                + " the user the limiter connects as may not run INFO (NOPERM")).as("the server unknown, named Redis as"
                + " the settings do: " + log).isEqualTo(1);
        assertThat(log).contains("INFO dev.ratelimit.RedisStore - Redis at ").doesNotContain(noInfo().password());
        RateLimiterStats stats = api.limiter().stats();
        assertThat(stats.redisEviction()).isNull();
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("unknown");
        assertThat(stats.redisEvictedKeys()).isEqualTo(-1);
        assertThat(stats.redisServer()).isEqualTo("unknown");
        assertThat(api.limiter().tryAcquire("c").degraded()).as("decisions are the user's to make").isFalse();
        assertThat(json(api)).contains("\"verdict\":{\"level\":\"ok\"")
                .contains("\"redisEviction\":{\"finding\":null,\"maxmemoryPolicy\":\"unknown\",\"evictedKeys\":null,"
                        + "\"server\":null,\"nodes\":[{\"node\":")
                .contains("\",\"server\":null}]}");
        assertThat(StatusReport.of(WEBAPP, Collections.singletonList(api)).html()).contains(
                "<tr><th>Redis eviction</th><td>unknown: ", "<tr><th>Redis server</th><td>unknown: ");
    }

    /**
     * A user that may run INFO for the sections read before servers were told apart (memory, stats,
     * replication: ACL first-argument rules), not {@code INFO server}. Made here, not by an
     * {@link AclUser}: another test restarts this Redis, which forgets its users.
     */
    @Test
    void aUserThatMayReadOnlyTheEvictionSectionsIsStillWatchedWithTheServerUnknown() {
        config("maxmemory-policy", "volatile-lru");
        config("maxmemory", "1gb");
        String user = "sections" + System.nanoTime();
        AclUsers.create(redis(), user, "pw", "+@all", "-info", "+info|memory", "+info|stats", "+info|replication");
        String log;
        PolicyRuntime api;
        try (CapturedErr err = new CapturedErr()) {
            api = start("sections", "redisUri", AclUsers.uri(redis(), user, "pw"));
            requests(api, 1);
            log = err.text();
        } finally {
            AclUsers.drop(redis(), user);
        }

        assertThat(log).as("INFO server refused alone is no reason to refuse the rest").doesNotContain(
                "cannot tell whether").contains("ERROR dev.ratelimit.RedisStore - Redis at ").contains(
                "[EVICTING_REDIS]: maxmemory-policy is volatile-lru");
        RateLimiterStats stats = api.limiter().stats();
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("volatile-lru");
        assertThat(stats.redisServer()).isEqualTo("unknown");
    }

    @Test
    void aRedisDownAtStartFailsNothingAndIsReadOnceItIsBack() {
        String log;
        PolicyRuntime api;
        redis().stop();
        try (CapturedErr err = new CapturedErr()) {
            api = start("down", "onRedisFailure", "allow", "redisTimeout", "300ms");
            assertThat(api.pipeline().before(new FakeRequest()).denied()).isFalse();
            log = err.text();
        } finally {
            redis().start();
        }
        assertThat(log).doesNotContain("EVICTING_REDIS");
        assertThat(api.limiter().stats().redisMaxmemoryPolicy()).isEqualTo("unknown");
        assertThat(api.limiter().stats().redisEvictedKeys()).isEqualTo(-1);
        assertThat(api.limiter().stats().redisServer()).isEqualTo("unknown");

        config("maxmemory-policy", "allkeys-lru");
        config("maxmemory", "1gb");
        nanos.addAndGet(EvictionWatch.CHECK_INTERVAL.toNanos() + 1);
        try (CapturedErr err = new CapturedErr()) {
            requests(api, 1);
            log = err.text();
        }

        assertThat(CapturedErr.count(log, errorLine() + "maxmemory-policy is allkeys-lru")).as(log).isEqualTo(1);
        assertThat(api.limiter().stats().redisEviction()).contains("allkeys-lru");
        assertThat(api.limiter().stats().redisServer()).as("read once it is back").isEqualTo(server());
    }

    @Test
    void aCallersOwnClientIsReadToo() {
        config("maxmemory-policy", "allkeys-lfu");
        config("maxmemory", "1gb");
        String log;
        RateLimiter limiter;
        try (RedisClient client = RedisClient.builder().fromURI(redis().uri()).build();
                CapturedErr err = new CapturedErr()) {
            RedisStore store = RedisStore.wrap(client);
            limiter = RateLimiter.builder(store).keyPrefix(redis().keyPrefix()).policyName("wrapped")
                    .rule(Rule.of(Algorithm.GCRA, 10, Duration.ofMinutes(1))).build();
            RateLimiter.builder(store).keyPrefix(redis().keyPrefix()).policyName("wrapped2")
                    .rule(Rule.of(Algorithm.GCRA, 10, Duration.ofMinutes(1))).build();
            limiter.tryAcquire("c");
            log = err.text();
        }

        assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RedisStore - " + server() + " at a caller's RedisClient"
                + " [EVICTING_REDIS]: maxmemory-policy is allkeys-lfu")).as(log).isEqualTo(1);
        assertThat(limiter.stats().redisEviction()).startsWith(server() + " at a caller's RedisClient has"
                + " maxmemory-policy allkeys-lfu");
        assertThat(limiter.stats().redisServer()).isEqualTo(server());
    }
}
