package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterBuilder;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerStrategy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * docs/sizing.md's bytes per client, measured: for each row of its table, the state of many clients
 * is made through the public {@link RateLimiter} API on a Redis of the test's own, and what Redis
 * holds for it read from {@code INFO memory} (clients' buffers and the script cache left out: they do
 * not grow with clients). The page's figure must lie within {@link #TOLERANCE} of the measured one,
 * so the page cannot go stale unnoticed, and every key made must have a TTL no longer than the page
 * says. The worked example's sums are checked against the table.
 */
class SizingPageIT {
    /** A Redis of the test's own: INFO memory on a shared server would count others' keys. */
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(ServerStrategy.PATH,
            ServerStrategy.TESTCONTAINERS);

    /** How far a measured figure may lie from the page's, as the page says. */
    private static final double TOLERANCE = 0.10;
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Path PAGE = Path.of("..", "docs/sizing.md");

    /** One row of the page's table: how its state is made, for how many clients. */
    private static final class Case {
        final String name;
        final int clients;
        final Function<RateLimiterBuilder, RateLimiterBuilder> limiter;
        final BiConsumer<RateLimiter, List<String>> traffic;
        /** The longest TTL a key of the case may have, as the page says. */
        final Duration longestTtl;
        /** The keys the clients send, made from plain addresses. */
        Function<List<String>, List<String>> clientKeys = Function.identity();

        Case(String name, int clients, Function<RateLimiterBuilder, RateLimiterBuilder> limiter,
                BiConsumer<RateLimiter, List<String>> traffic, Duration longestTtl) {
            this.name = name;
            this.clients = clients;
            this.limiter = limiter;
            this.traffic = traffic;
            this.longestTtl = longestTtl;
        }

        Case withClientKeys(Function<List<String>, List<String>> keys) {
            this.clientKeys = keys;
            return this;
        }
    }

    /** What one case cost Redis. */
    private static final class Measured {
        final long bytesPerClient;
        final double keysPerClient;

        Measured(long bytesPerClient, double keysPerClient) {
            this.bytesPerClient = bytesPerClient;
            this.keysPerClient = keysPerClient;
        }

        @Override
        public String toString() {
            return bytesPerClient + " bytes and " + keysPerClient + " keys per client";
        }
    }

    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("`fixed-window`", 10_000, rule(Rule.of(Algorithm.FIXED_WINDOW, 100, MINUTE)), requests(1),
                MINUTE));
        cases.add(new Case("`sliding-window`", 10_000, rule(Rule.of(Algorithm.SLIDING_WINDOW, 100, MINUTE)),
                requests(1), Duration.ofMinutes(2)));
        // Half the capacity taken: one request's key lives only until the bucket is full again, 0.6 s
        // here, which is shorter than the measurement.
        for (Algorithm algorithm : new Algorithm[] {Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA}) {
            cases.add(new Case("`" + algorithm.configName() + "`", 10_000, rule(Rule.of(algorithm, 100, MINUTE)),
                    permits(50), MINUTE));
        }
        Rule log = Rule.of(Algorithm.SLIDING_LOG, 100, MINUTE);
        cases.add(new Case("`sliding-log`, 1 request in the window", 10_000, rule(log), requests(1), MINUTE));
        cases.add(new Case("`sliding-log`, 10 requests", 5_000, rule(log), requests(10), MINUTE));
        cases.add(new Case("`sliding-log`, 100 requests", 1_000, rule(log), requests(100), MINUTE));
        cases.add(new Case("`sliding-log`, 1,000 requests", 50, rule(Rule.of(Algorithm.SLIDING_LOG, 1000, MINUTE)),
                requests(1000), MINUTE));
        cases.add(new Case("calendar quota", 10_000,
                rule(Rule.calendar(1000, CalendarPeriod.DAY, ZoneOffset.UTC).build()), requests(1), Duration.ofHours(25)));
        Rule inFlight = Rule.of(Algorithm.CONCURRENCY, 10, Duration.ofSeconds(30));
        cases.add(new Case("`concurrency`, 1 request in flight", 5_000, rule(inFlight), oneByOne(1),
                Duration.ofSeconds(30)));
        cases.add(new Case("`concurrency`, 10 requests in flight", 1_000, rule(inFlight), oneByOne(10),
                Duration.ofSeconds(30)));
        cases.add(new Case("`gcra`, client key digested", 10_000, rule(Rule.of(Algorithm.GCRA, 100, MINUTE)),
                permits(50), MINUTE).withClientKeys(SizingPageIT::digested));
        cases.add(new Case("`gcra`, client in the penalty box", 5_000,
                rule(Rule.builder(Algorithm.GCRA, 1, MINUTE).penalty(Duration.ofMinutes(5)).build()),
                (limiter, clients) -> clients.forEach(client -> {
                    assertThat(limiter.tryAcquire(client).allowed()).isTrue();
                    assertThat(limiter.tryAcquire(client).penalized()).isTrue();
                }), Duration.ofMinutes(5)));
        cases.add(new Case("`gcra`, client reset in the last 10 s", 5_000, rule(Rule.of(Algorithm.GCRA, 100, MINUTE)),
                (limiter, clients) -> clients.forEach(client -> {
                    assertThat(limiter.tryAcquire(client).allowed()).isTrue();
                    limiter.reset(client);
                }), Duration.ofSeconds(10)));
        return cases;
    }

    private static Function<RateLimiterBuilder, RateLimiterBuilder> rule(Rule rule) {
        return builder -> builder.rule(rule);
    }

    /** Each client decided {@code requests} times, each of the rule's cost, 200 clients a round trip. */
    private static BiConsumer<RateLimiter, List<String>> requests(int requests) {
        return (limiter, clients) -> {
            for (int from = 0; from < clients.size(); from += 200) {
                List<String> batch = clients.subList(from, Math.min(clients.size(), from + 200));
                for (int i = 0; i < requests; i++) {
                    assertThat(limiter.tryAcquireAll(batch)).allMatch(Decision::allowed);
                }
            }
        };
    }

    /** Each client takes {@code permits} in one request, 200 clients a round trip. */
    private static BiConsumer<RateLimiter, List<String>> permits(long permits) {
        return (limiter, clients) -> {
            for (int from = 0; from < clients.size(); from += 200) {
                Map<String, Long> batch = new LinkedHashMap<>();
                for (String client : clients.subList(from, Math.min(clients.size(), from + 200))) {
                    batch.put(client, permits);
                }
                assertThat(limiter.tryAcquireAll(batch).values()).allMatch(Decision::allowed);
            }
        };
    }

    /** Each client decided {@code requests} times, a call each: for limiters that batches do not take. */
    private static BiConsumer<RateLimiter, List<String>> oneByOne(int requests) {
        return (limiter, clients) -> {
            for (String client : clients) {
                for (int i = 0; i < requests; i++) {
                    assertThat(limiter.tryAcquire(client).allowed()).isTrue();
                }
            }
        };
    }

    /** Client keys the limiter stores as digests: longer than 128 characters, as a long API key. */
    private static List<String> digested(List<String> clients) {
        List<String> keys = new ArrayList<>();
        for (String client : clients) {
            keys.add(client + "/" + "k".repeat(128));
        }
        return keys;
    }

    /** Addresses of 8 to 12 characters, as IPv4 clients' keys are. */
    private static List<String> addresses(int count) {
        List<String> clients = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            clients.add("203.0." + (i / 250) + "." + (i % 250));
        }
        return clients;
    }

    /**
     * What Redis holds, less what does not grow with clients: their connections' buffers, the scripts.
     * Read until two readings a tenth of a second apart agree: Redis updates what it says of its
     * clients' buffers in its cron, so a reading right after traffic may count buffers since freed.
     */
    private static long heldMemory(UnifiedJedis admin) {
        long last = -1;
        for (int reading = 0; reading < 50; reading++) {
            String info = admin.info("memory");
            long held = field(info, "used_memory") - field(info, "mem_clients_normal") - field(info, "used_memory_scripts");
            if (held == last) {
                return held;
            }
            last = held;
            Durations.pause(100);
        }
        throw new AssertionError("Redis' memory did not settle within 5 s: last " + last);
    }

    private static long field(String info, String name) {
        Matcher value = Pattern.compile("(?m)^" + name + ":(\\d+)").matcher(info);
        assertThat(value.find()).as(name + " in INFO memory").isTrue();
        return Long.parseLong(value.group(1));
    }

    private static List<String> keysMatching(UnifiedJedis admin, String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = admin.scan(cursor, new ScanParams().match(pattern).count(1000));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }

    /** Batches of 200 decisions may take longer than 200 ms on a busy machine. */
    private static RedisStore connect() {
        return RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(10)).build());
    }

    private static Measured measure(Case c) {
        UnifiedJedis admin = redis.client();
        admin.flushAll();
        // The slow log keeps the arguments of slow calls (batches on a busy machine): memory that
        // comes with the machine's load, not with clients.
        admin.configSet("slowlog-log-slower-than", "-1");
        admin.slowlogReset();
        try (RedisStore store = connect()) {
            RateLimiter limiter = c.limiter.apply(RateLimiter.builder(store).policyName("api").localDenyCache(false))
                    .build();
            // Scripts loaded, connections open, the policy's overrides read: none of it is per client.
            c.traffic.accept(limiter, c.clientKeys.apply(List.of("198.51.100.1")));
            long keysBefore = admin.dbSize();
            long before = heldMemory(admin);

            List<String> clients = c.clientKeys.apply(addresses(c.clients));
            c.traffic.accept(limiter, clients);
            long held = heldMemory(admin) - before;

            long keys = admin.dbSize() - keysBefore;
            List<String> clientKeys = keysMatching(admin, limiter.redisKeys(clients.get(clients.size() - 1)).get(0) + "*");
            assertThat(clientKeys).as(c.name + ": the last client's keys").isNotEmpty();
            for (String key : clientKeys) {
                assertThat(admin.pttl(key)).as(c.name + ": every key has a TTL, at most the page's: " + key)
                        .isPositive().isLessThanOrEqualTo(c.longestTtl.toMillis());
            }
            return new Measured(Math.round(held / (double) c.clients), keys / (double) c.clients);
        }
    }

    /** The rows of the table that follows {@code marker}, header left out: first cell, then the others. */
    private static Map<String, List<String>> table(String page, String marker) {
        int at = page.indexOf(marker);
        assertThat(at).as("docs/sizing.md has " + marker).isNotNegative();
        String[] lines = page.substring(at + marker.length()).trim().split("\n\n", 2)[0].split("\n");
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (int i = 2; i < lines.length; i++) {
            List<String> cells = new ArrayList<>();
            for (String cell : lines[i].substring(1).split("\\|")) {
                cells.add(cell.trim());
            }
            rows.put(cells.get(0), cells.subList(1, cells.size()));
        }
        return rows;
    }

    private static long number(String text) {
        return Long.parseLong(text.replaceAll("[^0-9]", ""));
    }

    @Test
    void thePagesBytesPerClientAreWhatRedisHolds() throws IOException {
        Map<String, List<String>> page = table(Files.readString(PAGE, StandardCharsets.UTF_8), "<!-- bytes per client -->");
        List<Case> cases = cases();
        assertThat(page.keySet()).as("the table's rows, one per measured case")
                .containsExactlyElementsOf(cases.stream().map(c -> c.name).toList());
        Map<String, Measured> measured = new LinkedHashMap<>();
        for (Case c : cases) {
            measured.put(c.name, measure(c));
        }
        for (Case c : cases) {
            long written = number(page.get(c.name).get(1));
            assertThat((double) measured.get(c.name).bytesPerClient).as(c.name + " on " + redis.serverProduct()
                    + ": measured " + measured + ", the page says " + written)
                    .isCloseTo(written, within(written * TOLERANCE));
            long keys = c.name.contains("penalty box") ? 2 : 1;
            assertThat(measured.get(c.name).keysPerClient).as(c.name + ": keys per client").isEqualTo(keys);
        }
    }

    @Test
    void theWorkedExampleAddsUpTheTablesFigures() throws IOException {
        String text = Files.readString(PAGE, StandardCharsets.UTF_8);
        Map<String, List<String>> perClient = table(text, "<!-- bytes per client -->");
        Map<String, List<String>> example = table(text, "<!-- worked example -->");
        long total = 0;
        for (Map.Entry<String, List<String>> row : example.entrySet()) {
            List<String> cells = row.getValue();
            if (row.getKey().startsWith("**")) {
                assertThat(number(cells.get(cells.size() - 1))).as("the total").isEqualTo(total);
                continue;
            }
            String measuredRow = cells.get(1);
            assertThat(perClient).as(row.getKey() + " names a row of the table").containsKey(measuredRow);
            long bytes = number(cells.get(2));
            assertThat(bytes).as(row.getKey() + ": the table's figure").isEqualTo(number(perClient.get(measuredRow).get(1)));
            long megabytes = Math.round(number(cells.get(3)) * bytes / 1e6);
            assertThat(number(cells.get(4))).as(row.getKey() + ": clients × bytes, in MB").isEqualTo(megabytes);
            total += megabytes;
        }
        assertThat(total).as("the example has rows").isPositive();
    }

    @Test
    void leasesKeepNothingMoreInRedis() {
        Rule rule = Rule.of(Algorithm.TOKEN_BUCKET, 1000, Duration.ofHours(1));
        AtomicLong leased = new AtomicLong();
        Case plain = new Case("busy `token-bucket` client", 1_000, rule(rule), oneByOne(12), Duration.ofHours(1));
        Case leasing = new Case("the same with `leases`", 1_000, builder -> builder.rule(rule).leases(true),
                oneByOne(12).andThen((limiter, clients) -> leased.set(limiter.stats().leaseAdmissions())),
                Duration.ofHours(1));
        Measured without = measure(plain);
        Measured with = measure(leasing);
        assertThat(leased.get()).as("admissions from leases").isPositive();
        assertThat(without.keysPerClient).isEqualTo(1);
        assertThat(with.keysPerClient).as("a lease is taken in the client's own key").isEqualTo(1);
        assertThat((double) with.bytesPerClient).as("with leases " + with + ", without " + without)
                .isLessThanOrEqualTo(without.bytesPerClient * (1 + TOLERANCE));
    }

    @Test
    void aFullRedisUnderNoevictionIsAFailureTheFailurePolicyDecides() {
        UnifiedJedis admin = redis.client();
        admin.flushAll();
        try (RedisStore store = connect()) {
            RateLimiter limiter = RateLimiter.builder(store).policyName("full").onRedisFailure(FailurePolicy.DENY)
                    .rule(Rule.of(Algorithm.GCRA, 100, MINUTE)).build();
            assertThat(limiter.tryAcquire("before").degraded()).isFalse();
            admin.configSet("maxmemory-policy", "noeviction");
            admin.configSet("maxmemory", "1");
            try {
                Decision full = limiter.tryAcquire("client");
                assertThat(full.degraded()).as("decided by onRedisFailure").isTrue();
                assertThat(full.allowed()).as("deny, as set").isFalse();
                assertThat(admin.exists(limiter.redisKeys("client").get(0))).isFalse();
            } finally {
                admin.configSet("maxmemory", "0");
            }
            assertThat(limiter.tryAcquire("client").degraded()).as("Redis decides again").isFalse();
        }
    }

    @Test
    void aPolicyKeepsItsMarkAndOnceSetItsOverridesInAFewHundredBytes() throws IOException {
        UnifiedJedis admin = redis.client();
        try (RedisStore store = connect()) {
            RateLimiter limiter = RateLimiter.builder(store).policyName("policy").rule(Rule.of(Algorithm.GCRA, 100, MINUTE))
                    .build();
            limiter.overrides().setLimit(50, "JMX on host-1 at 2026-12-01T10:00:00Z");
            limiter.overrides().setEnforce(false, "JMX on host-1 at 2026-12-01T10:00:00Z");
            String overrides = limiter.overrides().redisKey();
            String mark = overrides.replace(":overrides", ":client-reset");
            assertThat(admin.pttl(overrides)).as("operator state: no TTL").isEqualTo(-1);
            assertThat(admin.pttl(mark)).as("the mark: a day at most").isPositive()
                    .isLessThanOrEqualTo(Duration.ofDays(1).toMillis());
            long bytes = admin.memoryUsage(overrides, 0) + admin.memoryUsage(mark, 0);
            String page = Files.readString(PAGE, StandardCharsets.UTF_8);
            Matcher said = Pattern.compile("together under ([0-9,]+) bytes").matcher(page);
            assertThat(said.find()).as("docs/sizing.md says what a policy keeps").isTrue();
            assertThat(bytes).isLessThan(number(said.group(1)));
        }
    }
}
