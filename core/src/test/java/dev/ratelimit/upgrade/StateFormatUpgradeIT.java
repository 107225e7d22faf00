package dev.ratelimit.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStoreExtension;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/upgrading.md's promise, held: what main as of d23b70f (which teams may run from a snapshot)
 * left in Redis is read right by today's code, and where d23b70f's code would misread what today's
 * writes, that is known and the page says not to run both at once. A {@link D23b70fNode} writes with
 * that commit's own scripts and arguments; today's {@link RateLimiter} then decides on the same keys,
 * on Redis' own clock (limits per hour, so nothing refills meanwhile).
 *
 * <p>Every future change to what a script keeps under a key, or to a key's name, adds its case here
 * (CONTRIBUTING.md): the scripts of the version it follows under {@code src/test/resources/upgrade/},
 * an old node that calls them as that version did, and the same assertions.
 */
class StateFormatUpgradeIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    @RegisterExtension
    static final RedisStoreExtension store = new RedisStoreExtension(redis);

    private static final Duration HOUR = Duration.ofHours(1);

    /** One algorithm: its rule, and whether its state's format changed since d23b70f. */
    record Row(String name, Rule rule, boolean formatChanged) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                new Row("fixed-window", Rule.of(Algorithm.FIXED_WINDOW, 5, HOUR), false),
                new Row("sliding-log", Rule.of(Algorithm.SLIDING_LOG, 5, HOUR), false),
                new Row("sliding-window", Rule.of(Algorithm.SLIDING_WINDOW, 5, HOUR), true),
                new Row("token-bucket", Rule.of(Algorithm.TOKEN_BUCKET, 5, HOUR), true),
                new Row("leaky-bucket", Rule.of(Algorithm.LEAKY_BUCKET, 5, HOUR), true),
                new Row("gcra", Rule.of(Algorithm.GCRA, 5, HOUR), true),
                new Row("calendar", Rule.calendar(5, CalendarPeriod.MONTH, ZoneOffset.UTC).build(), true),
                new Row("concurrency", Rule.of(Algorithm.CONCURRENCY, 5, Duration.ofSeconds(30)), false));
    }

    static Stream<Row> givingBack() {
        return rows().filter(row -> !row.name.equals("concurrency"));
    }

    private static RateLimiter today(String policy, Rule... rules) {
        return store.limiter(policy).localDenyCache(false).rules(List.of(rules)).build();
    }

    private static D23b70fNode old(String policy, Rule... rules) {
        return new D23b70fNode(redis.client(), redis.keyPrefix(), policy, rules);
    }

    @Test
    void theOldScriptsAreD23b70fsByteForByteAndLiveBesideTodaysUnderOtherNames() throws NoSuchAlgorithmException {
        for (Map.Entry<String, String> script : D23b70fNode.SHA1.entrySet()) {
            String name = script.getKey();
            boolean limiter = !name.equals("refund") && !name.equals("overrides");
            String source = limiter ? D23b70fNode.limiterScript(name) : D23b70fNode.read(name);
            String sha1 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(source.getBytes(StandardCharsets.UTF_8)));
            assertThat(sha1).as(name + ": the SHA-1 d23b70f's nodes loaded it by").isEqualTo(script.getValue());
            String todays = limiter ? LuaScript.limiter(name).sha1() : LuaScript.load(name).sha1();
            assertThat(todays).as(name + ": today's script is another, so EVALSHA never runs one version's for the other")
                    .isNotEqualTo(sha1);
        }
    }

    @ParameterizedTest
    @MethodSource("rows")
    void todaysNodeCountsWhatAD23b70fNodeLeft(Row row) {
        String policy = "forward-" + row.name;
        D23b70fNode old = old(policy, row.rule);
        for (int i = 0; i < 3; i++) {
            assertThat(old.admit("client").get(0)).as("d23b70f admits").isEqualTo(1);
        }
        RateLimiter today = today(policy, row.rule);
        assertThat(today.redisKeys("client")).as("the same key").isEqualTo(old.keys("client"));
        assertThat(today.peek("client").remaining()).as("3 of 5 taken").isEqualTo(2);
        assertThat(today.tryAcquire("client").remaining()).isEqualTo(1);
        assertThat(today.tryAcquire("client").remaining()).isZero();
        Decision over = today.tryAcquire("client");
        assertThat(over.allowed()).as("the sixth request").isFalse();
        assertThat(over.retryAfter()).isPositive();
    }

    @ParameterizedTest
    @MethodSource("rows")
    void aD23b70fNodeMisreadsTodaysStateWhereItsFormatChanged(Row row) {
        String policy = "reverse-" + row.name;
        RateLimiter today = today(policy, row.rule);
        for (int i = 0; i < 3; i++) {
            assertThat(today.tryAcquire("client").allowed()).isTrue();
        }
        List<Long> decided = old(policy, row.rule).admit("client");
        assertThat(decided.get(0)).isEqualTo(1);
        assertThat(decided.get(2)).as(row.formatChanged
                ? "d23b70f takes today's state for none: a full limit again, so the versions must not run together"
                : "d23b70f counts today's state: these roll together").isEqualTo(row.formatChanged ? 4 : 1);
    }

    @ParameterizedTest
    @MethodSource("givingBack")
    void giveBacksCrossVersionsOnlyWhereTheFormatIsShared(Row row) {
        String policy = "give-back-" + row.name;
        D23b70fNode old = old(policy, row.rule);
        RateLimiter today = today(policy, row.rule);

        List<Long> oldAdmission = old.admit("one");
        assertThat(today.tryAcquire("one").allowed()).isTrue();
        assertThat(old.refund("one", oldAdmission)).as("d23b70f gives back into today's state only where it can read it")
                .containsExactly(row.formatChanged ? 0L : 1L);
        assertThat(today.peek("one").remaining()).as("nothing given back where it could be misplaced")
                .isEqualTo(row.formatChanged ? 3 : 4);

        Decision todays = today.tryAcquire("two");
        assertThat(old.admit("two").get(0)).isEqualTo(1);
        assertThat(today.refund("two", todays)).as("today gives nothing back into a state d23b70f wrote, but the shared formats")
                .isEqualTo(!row.formatChanged);
    }

    @Test
    void aD23b70fPenaltyBoxKeepsTheClientOutOnTodaysNode() {
        Rule rule = Rule.builder(Algorithm.GCRA, 2, Duration.ofMinutes(1)).penalty(Duration.ofMinutes(10)).build();
        D23b70fNode old = old("box", rule);
        assertThat(old.admit("client").get(0)).isEqualTo(1);
        assertThat(old.admit("client").get(0)).isEqualTo(1);
        assertThat(old.admit("client").get(0)).as("PENALIZED: boxed by d23b70f").isEqualTo(2);
        Decision boxed = today("box", rule).tryAcquire("client");
        assertThat(boxed.allowed()).isFalse();
        assertThat(boxed.penalized()).isTrue();
        assertThat(boxed.retryAfter()).as("the penalty left").isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
    }

    @ParameterizedTest
    @MethodSource("delaying")
    void aRequestD23b70fDelayedKeepsItsPlaceOnTodaysNode(Algorithm algorithm) {
        Rule rule = Rule.of(algorithm, 5, Duration.ofSeconds(30));
        String policy = "delayed-" + algorithm.configName();
        D23b70fNode old = old(policy, rule);
        for (int i = 0; i < 5; i++) {
            assertThat(old.admit("client").get(0)).isEqualTo(1);
        }
        assertThat(old.decide("client", "1D60000000").get(0)).as("DELAYED by d23b70f").isEqualTo(4);
        RateLimiter today = today(policy, rule);
        assertThat(today.peek("client").remaining()).isZero();
        assertThat(today.tryAcquire("client").allowed()).as("the next place is the delayed request's").isFalse();
    }

    static Stream<Algorithm> delaying() {
        return Stream.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET, Algorithm.GCRA);
    }

    @Test
    void severalRulesKeepTheirKeysAndCounts() {
        Rule minute = Rule.builder(Algorithm.TOKEN_BUCKET, 3, Duration.ofMinutes(1)).name("minute").build();
        Rule hour = Rule.builder(Algorithm.TOKEN_BUCKET, 10, HOUR).name("hour").build();
        D23b70fNode old = old("two-rules", minute, hour);
        assertThat(old.admit("client").get(0)).isEqualTo(1);
        assertThat(old.admit("client").get(0)).isEqualTo(1);
        RateLimiter today = today("two-rules", minute, hour);
        assertThat(today.redisKeys("client")).isEqualTo(old.keys("client"));
        assertThat(today.tryAcquire("client").allowed()).isTrue();
        assertThat(today.tryAcquire("client").allowed()).as("the minute's 3, 2 of them taken by d23b70f").isFalse();
    }

    @Test
    void keyNamesAreD23b70fs() throws NoSuchAlgorithmException {
        String prefix = redis.keyPrefix();
        RateLimiter today = today("api", Rule.of(Algorithm.GCRA, 5, HOUR));
        String base = prefix + "api:{";
        assertThat(today.redisKeys("203.0.113.7")).containsExactly(base + "203.0.113.7}");
        String longKey = "k".repeat(129);
        String digest = "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(longKey.getBytes(StandardCharsets.UTF_8)));
        assertThat(today.redisKeys(longKey)).as("longer than 128: its digest").containsExactly(base + digest + "}");
        assertThat(today.redisKeys(digest)).as("a digest already (a secret part): marked once more")
                .containsExactly(base + "#" + digest + "}");
        assertThat(today.redisKeys("a{b}")).as("braces: digested").allMatch(key -> key.matches(
                java.util.regex.Pattern.quote(base) + "#[A-Za-z0-9_-]{43}}"));
        String key = base + "203.0.113.7}";
        assertThat(RedisKeys.penaltyBox(key)).isEqualTo(key + ":{penalty}");
        assertThat(RedisKeys.resetGuard(key)).isEqualTo(key + ":{reset}");
        assertThat(RedisKeys.dimensionKey(prefix, "api", "100/1m", "u1")).isEqualTo(prefix + "api:{api}:100/1m:u1");
        assertThat(today.overrides().redisKey()).isEqualTo(prefix + "api:{api}:overrides");
    }

    @Test
    void overridesSetOnEitherVersionAreReadByTheOther() {
        Rule rule = Rule.of(Algorithm.GCRA, 5, HOUR);
        D23b70fNode old = old("overrides", rule);
        old.overrides("set", "enforce", "false", "JMX on old-1");
        old.overrides("set", "limit", "3", "JMX on old-1");
        RateLimiter today = today("overrides", rule);
        today.overrides().refresh();
        assertThat(today.overrides().enforce()).as("a dry run set on d23b70f stays one").isFalse();
        assertThat(today.overrides().limit()).isEqualTo(3);
        assertThat(today.overrides().origin()).isEqualTo("JMX on old-1");

        today.overrides().setLimit(4, "JMX on new-1");
        List<Long> read = old.overrides("read", "", "", "");
        assertThat(read.get(0)).as("d23b70f reads today's limit").isEqualTo(4);
        assertThat(read.get(1)).as("and the enforce override").isZero();
        assertThat(read.get(2)).as("and today's client-reset mark, as a counter").isNotNegative();
    }
}
