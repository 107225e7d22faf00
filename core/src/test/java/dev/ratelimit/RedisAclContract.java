package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.counter.DistinctCounter;
import dev.ratelimit.counter.SlidingWindowCounter;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.http.status.StatusReport;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.http.webapp.Webapp;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * The Redis users of docs/security.md, proven. For each transport the contract creates exactly the
 * user the page writes (its name, password and key prefix aside), runs the library's paths under it
 * (every algorithm's decisions, refunds and after-charges, quota and concurrency leases, live
 * overrides set, read and cleared, a client's reset and peek over JMX and on the status page, the
 * eviction check, the warm-up), and then finds that Redis refused nothing ({@code ACL LOG}) and that
 * every command the page grants was run: no command missing, none granted for nothing. Without one
 * of them, the library says so as the page tells, never a silent allow.
 */
abstract class RedisAclContract {
    /** Redis 7.0 says "NOPERM this user has no ...", Redis 7.2+ and Valkey "NOPERM User <name> has no ...". */
    private static final String REFUSED_CONNECTION = "refused the connection: NOPERM (this user|User \\S+) ";

    /** The page, read once: the users below are its lines and nothing else. */
    static final SecurityPage PAGE = SecurityPage.read(Path.of("..", "docs", "security.md"));

    /** The suite's server. */
    public abstract RedisServerExtension redis();

    /** Every policy a test started; the slow paths that wait for a window start theirs from a thread of their own. */
    private final List<PolicyRuntime> runtimes = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<String> users = new ArrayList<>();

    @AfterEach
    void stop() {
        for (PolicyRuntime runtime : runtimes) {
            runtime.close();
        }
        try (Jedis admin = admin()) {
            for (String user : users) {
                admin.sendCommand(Protocol.Command.ACL, "DELUSER", user);
            }
        }
    }

    /** An admin connection that sends nothing on its own (no CLIENT SETINFO), so the command counts are the user's. */
    Jedis admin() {
        return new Jedis(redis().host(), redis().port(),
                DefaultJedisClientConfig.builder().clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
    }

    /**
     * Whether a server takes the rule {@code +client|setinfo}: Redis 7.0 refuses it (CLIENT has no
     * SETINFO there), 6.2 takes it as a first-argument rule, 7.2 and newer and Valkey as a subcommand.
     *
     * @param product as {@link RedisServerExtension#serverProduct()} names it, e.g. {@code redis 7.0.15}
     */
    static boolean takesClientSetInfo(String product) {
        Matcher version = Pattern.compile("(\\w+) (\\d+)\\.(\\d+)").matcher(product);
        assertThat(version.lookingAt()).as(product).isTrue();
        boolean redis70 = version.group(1).equalsIgnoreCase("redis") && version.group(2).equals("7")
                && Integer.parseInt(version.group(3)) < 2;
        return !redis70;
    }

    /** The page's rules for a transport on a server named {@code product}, with extra ones. */
    static List<String> rulesFor(String transport, String product, List<String> extra) {
        List<String> rules = new ArrayList<>(PAGE.user(transport).rules);
        if (takesClientSetInfo(product)) {
            rules.addAll(PAGE.addition("every server but Redis 7.0"));
        }
        rules.addAll(extra);
        return rules;
    }

    /** The rules as {@code ACL SETUSER} takes them for a user {@code name}: the test's password and key prefix for the page's. */
    static String[] setUser(String name, String password, String keyPrefix, List<String> rules) {
        List<String> args = new ArrayList<>(List.of("SETUSER", name));
        for (String rule : rules) {
            args.add(rule.equals(">change-me") ? ">" + password : rule.equals("~ratelimit:*") ? "~" + keyPrefix + "*" : rule);
        }
        return args.toArray(new String[0]);
    }

    /** The page's user for a transport, as this server is to get it, with extra rules. */
    List<String> rulesFor(String transport, String... extra) {
        return rulesFor(transport, redis().serverProduct(), Arrays.asList(extra));
    }

    /**
     * Creates the user with {@code rules} but {@code without}, on the server, under a fresh name and
     * password and with the suite's key prefix for the page's {@code ratelimit:}; returns its URI.
     */
    String createUser(List<String> rules, String... without) {
        List<String> kept = new ArrayList<>(rules);
        for (String rule : without) {
            assertThat(kept.remove(rule)).as("the page grants " + rule).isTrue();
        }
        String name = "acl" + System.nanoTime();
        String password = "pw" + System.nanoTime();
        try (Jedis admin = admin()) {
            admin.sendCommand(Protocol.Command.ACL, setUser(name, password, redis().keyPrefix(), kept));
        }
        users.add(name);
        return "redis://" + name + ":" + password + "@" + redis().host() + ":" + redis().port();
    }

    /** A policy as web.xml gives it: the strings of its init-params, on {@code uri} and the suite's keys. */
    PolicyRuntime start(String uri, String policy, String... settings) {
        Map<String, String> values = new HashMap<>();
        values.put("redisUri", uri);
        values.put("redisTimeout", "2s");
        values.put("keyPrefix", redis().keyPrefix());
        values.put("policyName", policy);
        values.put("jmx", "false");
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        PolicyRuntime runtime = PolicyRuntime.start(HttpPolicy.parser("init-param '%s'")
                .defaultPolicyName(policy, "the filter-name").parse(values), REGISTRY, WEBAPP);
        runtimes.add(runtime);
        return runtime;
    }

    private static final dev.ratelimit.RedisStoreRegistry REGISTRY = new dev.ratelimit.RedisStoreRegistry();
    private static final String WEBAPP = "/acl";

    static Admission request(PolicyRuntime runtime, String address) {
        return runtime.pipeline().before(new FakeRequest().from(address));
    }

    /** Requests from one address until the first denial; how many were admitted (each decided by Redis). */
    static int admittedOf(PolicyRuntime runtime, String address, int most) {
        for (int i = 0; i < most; i++) {
            Admission admission = request(runtime, address);
            assertThat(admission.decision().degraded()).as(runtime + " decided by Redis").isFalse();
            if (admission.denied()) {
                return i;
            }
            runtime.pipeline().after(admission, 200, null);
        }
        return most;
    }

    /** What Redis counted per command since {@code CONFIG RESETSTAT}: {@code INFO commandstats}' names. */
    static Set<String> commandsRun(Jedis admin) {
        Set<String> run = new TreeSet<>();
        Matcher stat = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)").matcher(admin.info("commandstats"));
        while (stat.find()) {
            if (Long.parseLong(stat.group(2)) > 0) {
                run.add(stat.group(1).toLowerCase(Locale.ROOT));
            }
        }
        return run;
    }

    /** The commands the rules grant: {@code +get} is {@code get}, {@code +info|memory} is {@code info|memory}. */
    static Set<String> granted(List<String> rules) {
        Set<String> granted = new LinkedHashSet<>();
        for (String rule : rules) {
            if (rule.startsWith("+")) {
                granted.add(rule.substring(1).toLowerCase(Locale.ROOT));
            }
        }
        return granted;
    }

    /**
     * Every granted command was run: counted under its name, or for a first-argument rule such as
     * {@code info|memory} under the command's (Redis counts {@code INFO}, and 6.2 {@code CLIENT}, as one).
     */
    static Set<String> unused(Set<String> granted, Set<String> run) {
        Set<String> unused = new TreeSet<>();
        for (String command : granted) {
            String head = command.contains("|") ? command.substring(0, command.indexOf('|')) : command;
            if (!run.contains(command) && !run.contains(head)) {
                unused.add(command);
            }
        }
        return unused;
    }

    static void assertNothingRefused(Jedis admin, String user) {
        Object log = admin.sendCommand(Protocol.Command.ACL, "LOG");
        assertThat(String.valueOf(redis.clients.jedis.BuilderFactory.ENCODED_OBJECT.build(log)))
                .as("ACL LOG: what Redis refused the user").doesNotContain(user);
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void everyPathOfTheLuaTransportRunsUnderThePagesUser() throws Exception {
        List<String> rules = rulesFor("lua");
        String uri = createUser(rules);
        String user = users.get(users.size() - 1);
        try (Jedis admin = admin()) {
            admin.configResetStat();
            admin.sendCommand(Protocol.Command.ACL, "LOG", "RESET");

            String log;
            try (CapturedErr err = new CapturedErr()) {
                luaPaths(uri);
                log = err.text();
            }

            assertNothingRefused(admin, user);
            assertThat(log).as(log).doesNotContain("WARN", "ERROR").contains("is ready for its first requests");
            for (PolicyRuntime runtime : runtimes) {
                RateLimiterStats stats = runtime.limiter().stats();
                assertThat(stats.redisRefusals() + stats.redisErrors() + stats.degraded()).as(runtime + ": " + stats)
                        .isZero();
            }
            if (redis().owned()) {
                Set<String> run = commandsRun(admin);
                assertThat(unused(granted(rules), run)).as("granted but never run; run: " + run).isEmpty();
            }
        }
    }

    @Test
    void everyPathOfTheTransactionTransportRunsUnderThePagesUser() throws Exception {
        List<String> rules = rulesFor("transaction");
        String uri = createUser(rules);
        String user = users.get(users.size() - 1);
        try (Jedis admin = admin()) {
            admin.configResetStat();
            admin.sendCommand(Protocol.Command.ACL, "LOG", "RESET");

            String log;
            try (CapturedErr err = new CapturedErr()) {
                transactionPaths(uri, admin);
                log = err.text();
            }

            assertNothingRefused(admin, user);
            assertThat(log).as(log).doesNotContain("WARN", "ERROR").contains("is ready for its first requests");
            for (PolicyRuntime runtime : runtimes) {
                RateLimiterStats stats = runtime.limiter().stats();
                assertThat(stats.redisRefusals() + stats.redisErrors() + stats.degraded()).as(runtime + ": " + stats)
                        .isZero();
            }
            Set<String> run = commandsRun(admin);
            assertThat(run).as("no script").doesNotContain("eval", "evalsha", "script|load", "script");
            if (redis().owned()) {
                assertThat(unused(granted(rules), run)).as("granted but never run; run: " + run).isEmpty();
            }
        }
    }

    /**
     * A {@code redisUri} naming a database other than 0: each connection sends SELECT, which the page's
     * addition grants; without it the connection is refused, as the page says.
     */
    @Test
    void aDatabaseOtherThanZeroTakesSelect() throws Exception {
        List<String> addition = PAGE.addition("a database other than 0");
        String uri = createUser(rulesFor("lua", addition.toArray(new String[0]))) + "/1";
        String user = users.get(users.size() - 1);
        try (Jedis admin = admin()) {
            admin.sendCommand(Protocol.Command.ACL, "LOG", "RESET");
            String log;
            try (CapturedErr err = new CapturedErr()) {
                PolicyRuntime runtime = start(uri, "db1", "limit", "3", "window", "1m");
                assertThat(admittedOf(runtime, "203.0.113.5", 5)).isEqualTo(3);
                log = err.text();
            }
            assertThat(log).as(log).doesNotContain("WARN", "ERROR");
            assertNothingRefused(admin, user);
            admin.select(1);
            assertThat(admin.exists(runtimes.get(0).limiter().redisKeys("203.0.113.5").get(0))).as("in database 1").isTrue();
        }

        String without = createUser(rulesFor("lua")) + "/1";
        String log;
        PolicyRuntime runtime;
        Admission answer;
        try (CapturedErr err = new CapturedErr()) {
            runtime = start(without, "db1-without", "limit", "3", "window", "1m");
            answer = request(runtime, "203.0.113.5");
            log = err.text();
        }
        assertThat(answer.decision().degraded()).as("answered by onRedisFailure=allow").isTrue();
        assertThat(runtime.limiter().stats().redisRefusals()).isEqualTo(1);
        assertThat(log).as(log).contains("[REDIS_NOT_READY]: Redis did not answer at start: ",
                "ERROR dev.ratelimit.RateLimiter - Rate limit policy 'db1-without': Redis refuses the limiter's commands")
                .containsPattern(REFUSED_CONNECTION + Pattern.quote("has no permissions to run the 'select' command"));
    }

    /** The counters (from code) with the page's addition for them: nothing refused, each added command used. */
    @Test
    void theCountersRunUnderTheLuaUserWithThePagesAddition() throws Exception {
        List<String> addition = PAGE.addition("counters");
        String uri = createUser(rulesFor("lua", addition.toArray(new String[0])));
        String user = users.get(users.size() - 1);
        try (Jedis admin = admin(); RedisStore store = RedisStore.connect(uri)) {
            admin.configResetStat();
            admin.sendCommand(Protocol.Command.ACL, "LOG", "RESET");
            SlidingWindowCounter events = SlidingWindowCounter.builder(store, "events", Duration.ofSeconds(1))
                    .keyPrefix(redis().keyPrefix()).slots(4).build();
            DistinctCounter distinct = DistinctCounter.builder(store, "distinct", Duration.ofSeconds(1))
                    .keyPrefix(redis().keyPrefix()).maxItems(2).build();
            for (int i = 0; i < 3; i++) {
                assertThat(events.increment("k")).isEqualTo(i + 1);
                assertThat(distinct.add("k", "item" + i)).isEqualTo(Math.min(i + 1, 2));
            }
            assertThat(events.count("k")).isEqualTo(3);
            events.clear("k");
            distinct.clear("k");
            assertThat(events.count("k") + distinct.count("k")).isZero();
            // A counter's slots that have left its window are deleted as it counts (HDEL): two slots of
            // 200 ms; three writes, each within the window of the one before (which keeps the hash
            // that long), the third a window after the first.
            SlidingWindowCounter brief = SlidingWindowCounter.builder(store, "brief", Duration.ofMillis(400))
                    .keyPrefix(redis().keyPrefix()).slots(2).build();
            WindowTiming.until(attempt -> {
                String key = "brief" + attempt;
                WindowTiming timing = new WindowTiming(Duration.ofMillis(400));
                timing.step(() -> brief.increment(key));
                pause(220);
                timing.step(() -> brief.increment(key));
                pause(200);
                timing.step(() -> brief.increment(key));
                return timing.within(0, 1) && timing.within(1, 2) && timing.leftBefore(0, 2);
            });

            assertNothingRefused(admin, user);
            if (redis().owned()) {
                Set<String> run = commandsRun(admin);
                assertThat(unused(granted(addition), run)).as("added but never run; run: " + run).isEmpty();
            }
        }
    }

    /**
     * One rule of the page's user taken away, and what the page says then happens: every request is
     * still answered (by Redis, or by {@code onRedisFailure} while Redis refuses), and the log says
     * what is missing, once, never a silent allow.
     */
    @ParameterizedTest(name = "{0} without {1}")
    @CsvSource(delimiter = ';', value = {
        // a command the scripts call: a refusal, at ERROR once, with what to grant
        "lua ; +zadd ; refused ; may run scripts but not every command or key they use",
        "lua ; +time ; refused ; may run scripts but not every command or key they use",
        // the scripts themselves
        "lua ; +evalsha ; refused ; may not run scripts: grant it +@scripting",
        // EVAL only once Redis has lost the scripts loaded at start
        "lua ; +eval ; flushed ; may not run scripts: grant it +@scripting",
        // a command the transactions send
        "transaction ; +time ; refused ; lacks a permission the limiter needs",
        "transaction ; +watch ; refused ; lacks a permission the limiter needs",
        "transaction ; +multi ; refused ; lacks a permission the limiter needs",
        "transaction ; +exec ; refused ; lacks a permission the limiter needs",
        // the key pattern
        "lua ; ~ratelimit:* ; refused ; lacks a permission the limiter needs",
        "transaction ; ~ratelimit:* ; refused ; lacks a permission the limiter needs",
        // the live overrides' commands: decisions go on, the overrides are refused
        "lua ; +hmget ; overrides ; may run scripts but not every command or key they use",
        "transaction ; +hmget ; overrides ; lacks a permission the limiter needs",
        "lua ; +hset ; set ; may run scripts but not every command or key they use",
        "transaction ; +hset ; set ; lacks a permission the limiter needs",
        // what the warm-up and the eviction check ask: decisions go on
        "lua ; +ping ; ping ; has no permissions to run the 'ping' command",
        "lua ; +script|load ; works ; 0 scripts loaded",
        "lua ; +info|memory ; unknown ; cannot tell whether Redis may evict the rate limiter's keys",
        "transaction ; +info|server ; works ; ",
        "transaction ; +client|setname ; works ; "})
    void withoutOneOfItsRulesTheLibrarySaysWhatThePageSays(String transport, String without, String outcome,
            String saysOrNothing) throws Exception {
        String says = saysOrNothing == null ? "" : saysOrNothing;
        String uri = createUser(rulesFor(transport), without);
        String policy = "without" + System.nanoTime();
        String log;
        List<Admission> answers = new ArrayList<>();
        PolicyRuntime runtime;
        try (CapturedErr err = new CapturedErr()) {
            PolicyRuntime started = start(uri, policy, "transport", transport, "algorithm", "sliding-log", "limit", "5",
                    "window", "1m");
            runtime = started;
            if (outcome.equals("flushed")) {
                assertThat(request(started, "203.0.113.4").decision().degraded()).as("the scripts loaded at start")
                        .isFalse();
                try (Jedis admin = admin()) {
                    admin.scriptFlush();
                }
            }
            for (int i = 0; i < 3; i++) {
                answers.add(request(runtime, "203.0.113.4"));
            }
            if (outcome.equals("set")) {
                // An operator's limit override (over JMX it is the same call).
                assertThatThrownBy(() -> started.limiter().overrides().setLimit(2, "ops"))
                        .isInstanceOf(RedisFailureException.class).hasMessageContaining("refused");
            }
            if (outcome.equals("ping")) {
                // A node quiet for a second gets a PING before the next decision.
                Thread.sleep(1_100);
                answers.add(request(runtime, "203.0.113.4"));
            }
            log = err.text();
        }
        RateLimiterStats stats = runtime.limiter().stats();
        assertThat(answers).as("every request answered, none denied").noneMatch(Admission::denied);
        assertThat(stats.redisErrors()).as("a refusal is not counted as an outage: " + log).isZero();
        switch (outcome) {
            case "refused":
            case "flushed":
                assertThat(answers).as("answered by onRedisFailure=allow").allMatch(a -> a.decision().degraded());
                assertThat(stats.redisRefusals()).isEqualTo(3);
                assertThat(stats.redisRefusal()).contains(says);
                assertThat(CapturedErr.count(log, "ERROR dev.ratelimit.RateLimiter - Rate limit policy '" + policy
                        + "': Redis refuses the limiter's commands, and waiting will not fix it")).as(log).isEqualTo(1);
                assertThat(log).contains("To fix: the user the limiter connects as " + says.substring(0, 8));
                assertThat(StatusReport.of(WEBAPP, List.of(runtime)).json()).as("the status page's verdict")
                        .contains("Redis refuses the limiter", says);
                break;
            case "overrides":
                assertThat(answers).as("decided by Redis").noneMatch(a -> a.decision().degraded());
                assertThat(log).as(log).contains("ERROR dev.ratelimit.RateLimiter - Rate limit policy '" + policy
                        + "' cannot read its live overrides: Redis refuses, and waiting will not fix it", says);
                break;
            case "set":
                assertThat(answers).as("decided by Redis").noneMatch(a -> a.decision().degraded());
                assertThat(log).as(log).contains("ERROR dev.ratelimit.RateLimiter - Rate limit policy '" + policy
                        + "' cannot set its live overrides: Redis refuses, and waiting will not fix it", says);
                break;
            case "ping":
                assertThat(answers.subList(0, 3)).as("decided by Redis").noneMatch(a -> a.decision().degraded());
                assertThat(answers.get(3).decision().degraded()).as("after a quiet second").isTrue();
                assertThat(log).as(log).contains("WARN dev.ratelimit.RateLimiter - Rate limit policy '" + policy
                        + "' [REDIS_NOT_READY]: Redis did not answer at start: ",
                        "ERROR dev.ratelimit.RateLimiter - Rate limit policy '" + policy + "': Redis refuses")
                        .containsPattern(REFUSED_CONNECTION + Pattern.quote(says));
                break;
            case "unknown":
                assertThat(answers).as("decided by Redis").noneMatch(a -> a.decision().degraded());
                assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("unknown");
                assertThat(log).as(log).contains(says).doesNotContain("WARN", "ERROR");
                break;
            default:
                assertThat(answers).as("decided by Redis").noneMatch(a -> a.decision().degraded());
                assertThat(log).as(log).contains(says).doesNotContain("WARN", "ERROR");
                break;
        }
    }

    private void transactionPaths(String uri, Jedis admin) throws Exception {
        String client = "203.0.113.2";
        // A sliding log is trimmed to its anchor as it is written (ZREMRANGEBYSCORE): a third entry
        // whose window holds the second but not the first; meanwhile the other paths run.
        CompletableFuture<Void> trim = CompletableFuture.runAsync(() -> {
            PolicyRuntime trimmed = start(uri, "tx-trim", "transport", "transaction", "algorithm", "sliding-log",
                    "limit", "5", "window", "600ms");
            WindowTiming.until(attempt -> {
                String address = "198.51.100." + (10 + attempt);
                WindowTiming timing = new WindowTiming(Duration.ofMillis(600));
                timing.step(() -> assertThat(admittedOf(trimmed, address, 1)).isEqualTo(1));
                pause(350);
                timing.step(() -> assertThat(admittedOf(trimmed, address, 1)).isEqualTo(1));
                pause(260);
                timing.step(() -> assertThat(admittedOf(trimmed, address, 1)).isEqualTo(1));
                return timing.within(0, 1) && timing.leftBefore(0, 2) && timing.within(1, 2);
            });
        });
        for (String name : List.of("fixed-window", "sliding-log")) {
            PolicyRuntime runtime = start(uri, "tx-" + name, "transport", "transaction", "algorithm", name,
                    "limit", "3", "window", "1m");
            assertThat(admittedOf(runtime, client, 5)).as(name).isEqualTo(3);
            assertThat(runtime.limiter().tryAcquire(client, 2).retryAfter()).as(name).isPositive();

            // Another algorithm's state under a client's key (a policy switched to this transport): replaced.
            String foreign = "203.0.113.3";
            admin.zadd(runtime.limiter().redisKeys(foreign).get(0), 1, "x");
            assertThat(admittedOf(runtime, foreign, 5)).as(name + " over another's state").isEqualTo(3);
        }

        PolicyRuntime nodeA = start(uri, "tx-ops", "transport", "transaction", "algorithm", "sliding-log", "limit", "5",
                "window", "1m", "jmx", "true");
        operateOverJmx(uri, nodeA, client);
        trim.join();

        String page = StatusReport.of(WEBAPP, runtimes, client).json();
        assertThat(page).contains("\"name\":\"tx-fixed-window\",\"key\":\"" + client + "\"")
                .doesNotContain("\"degraded\":true");

        RateLimiterStats stats = runtimes.get(0).limiter().stats();
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("noeviction");
        assertThat(stats.redisServer()).isEqualToIgnoringCase(redis().serverProduct());
    }

    private void luaPaths(String uri) throws Exception {
        String client = "203.0.113.1";
        // A sliding log charged when entries of earlier charges have left its window trims them
        // (ZREMRANGEBYRANK): an admission and its charge, an admission within the window of that
        // charge, and its charge once the first two have left; meanwhile the other paths run.
        CompletableFuture<Void> trim = CompletableFuture.runAsync(() -> {
            PolicyRuntime trimmed = start(uri, "lua-charge-trim", "algorithm", "sliding-log", "limit", "9",
                    "window", "600ms", "chargeAfter", "true");
            WindowTiming.until(attempt -> {
                String address = "198.51.100." + (10 + attempt);
                WindowTiming timing = new WindowTiming(Duration.ofMillis(600));
                Admission first = request(trimmed, address);
                timing.step(() -> trimmed.pipeline().after(first, 200, 2L));
                pause(350);
                Admission[] second = new Admission[1];
                timing.step(() -> second[0] = request(trimmed, address));
                pause(280);
                timing.step(() -> trimmed.pipeline().after(second[0], 200, 2L));
                return timing.within(0, 1) && timing.leftBefore(0, 2) && timing.within(1, 2);
            });
            assertThat(trimmed.limiter().stats().chargeFailures()).isZero();
        });
        for (Algorithm algorithm : Algorithm.values()) {
            if (algorithm == Algorithm.CONCURRENCY) {
                continue;
            }
            String name = algorithm.configName();
            PolicyRuntime runtime = start(uri, "lua-" + name, "algorithm", name, "limit", "3", "window", "1m");
            assertThat(admittedOf(runtime, client, 5)).as(name).isEqualTo(3);
            // A denial of several permits: when enough of the admitted ones will have left.
            assertThat(runtime.limiter().tryAcquire(client, 2).retryAfter()).as(name).isPositive();
            // A batch of clients, in one script call (coalesced decisions take the same way).
            List<Decision> batch = runtime.limiter().tryAcquireAll(List.of("b1", "b2", "b3"));
            assertThat(batch).as(name).allMatch(decision -> decision.allowed() && !decision.degraded());

            // countStatus: an answer that does not count gives its permits back.
            PolicyRuntime refunds = start(uri, "lua-refund-" + name, "algorithm", name, "limit", "3", "window", "1m",
                    "countStatus", "401");
            for (int i = 0; i < 5; i++) {
                Admission admission = request(refunds, client);
                assertThat(admission.denied()).as(name + " refunds").isFalse();
                refunds.pipeline().after(admission, 200, null);
            }
            assertThat(refunds.limiter().stats().refundsKept()).as(name).isZero();
        }

        // chargeAfter: a usage above the cost charges the rest, past the limit; one below gives back.
        for (String name : List.of("fixed-window", "sliding-log", "token-bucket", "gcra")) {
            PolicyRuntime charged = start(uri, "lua-charge-" + name, "algorithm", name, "limit", "5", "window", "1m",
                    "chargeAfter", "true");
            Admission first = request(charged, client);
            charged.pipeline().after(first, 200, 0L);
            Admission second = request(charged, client);
            charged.pipeline().after(second, 200, 5L);
            assertThat(charged.limiter().stats().afterCharges()).as(name).isEqualTo(1);
            assertThat(request(charged, client).denied()).as(name + ": in debt").isTrue();
        }

        // Quota leases: lent, admitted from the lease, given back when the policy stops.
        for (String name : List.of("fixed-window", "sliding-log", "token-bucket", "gcra")) {
            PolicyRuntime leased = start(uri, "lua-lease-" + name, "algorithm", name, "limit", "100", "window", "1m",
                    "leases", "true");
            for (int i = 0; i < 20; i++) {
                request(leased, "198.51.100." + (i % 2));
            }
            assertThat(leased.limiter().stats().leaseAdmissions()).as(name).isPositive();
            assertThat(leased.limiter().giveBackLeases()).as(name).isPositive();
        }

        // Concurrency leases: taken, refused at the limit, released after the response.
        PolicyRuntime inFlight = start(uri, "lua-concurrency", "algorithm", "concurrency", "limit", "2", "window", "30s");
        Admission one = request(inFlight, client);
        Admission two = request(inFlight, client);
        assertThat(request(inFlight, client).denied()).isTrue();
        inFlight.pipeline().after(one, 200, null);
        inFlight.pipeline().after(two, 200, null);
        assertThat(admittedOf(inFlight, client, 1)).isEqualTo(1);

        // A penalty box, a delayed admission, several dimensions, a calendar quota.
        PolicyRuntime boxed = start(uri, "lua-penalty", "algorithm", "gcra", "limit", "2", "window", "1m",
                "penalty", "1m");
        assertThat(admittedOf(boxed, client, 5)).isEqualTo(2);
        assertThat(boxed.limiter().stats().penalties()).isEqualTo(1);
        PolicyRuntime delayed = start(uri, "lua-delay", "algorithm", "gcra", "limit", "60", "window", "1m",
                "burst", "1");
        assertThat(delayed.limiter().tryAcquire("d", Duration.ofSeconds(5)).allowed()).isTrue();
        Decision waits = delayed.limiter().tryAcquire("d", Duration.ofSeconds(5));
        assertThat(waits.allowed()).isTrue();
        assertThat(delayed.limiter().stats().delayedAdmissions()).isEqualTo(1);
        PolicyRuntime dimensions = start(uri, "lua-limits", "limits", "10 per 1m by global; 3 per 1m by ip");
        assertThat(admittedOf(dimensions, client, 5)).isEqualTo(3);
        PolicyRuntime calendar = start(uri, "lua-calendar", "limit", "3", "calendar", "day");
        assertThat(admittedOf(calendar, client, 5)).isEqualTo(3);

        // Live overrides and one client, over JMX, on a policy that two nodes run.
        PolicyRuntime nodeA = start(uri, "lua-ops", "algorithm", "sliding-log", "limit", "5", "window", "1m",
                "jmx", "true");
        operateOverJmx(uri, nodeA, client);

        trim.join();

        // The status page's look at one client, in every policy.
        String page = StatusReport.of(WEBAPP, runtimes, client).json();
        assertThat(page).contains("\"name\":\"lua-gcra\",\"key\":\"" + client + "\"").doesNotContain("\"degraded\":true");

        // The eviction check (INFO) when the store's first limiter started, and the server it names.
        RateLimiterStats stats = runtimes.get(0).limiter().stats();
        assertThat(stats.redisMaxmemoryPolicy()).isEqualTo("noeviction");
        assertThat(stats.redisServer()).isEqualToIgnoringCase(redis().serverProduct());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * JMX on node A: a limit override and {@code enforce} set, read by node B, cleared; a client
     * peeked and reset, whose next request is admitted again.
     */
    private void operateOverJmx(String uri, PolicyRuntime nodeA, String client) throws Exception {
        String policy = nodeA.policy().policyName();
        // Node B: another webapp's store on the same user, so that it reads what A wrote from Redis.
        PolicyRuntime nodeB = PolicyRuntime.start(nodeA.policy(), new dev.ratelimit.RedisStoreRegistry(), "/acl-b");
        runtimes.add(nodeB);
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = RateLimiterJmx.name(Webapp.jmxName(WEBAPP), policy, 1);
        assertThat(admittedOf(nodeA, client, 10)).isEqualTo(5);

        beans.setAttribute(bean, new Attribute("LimitOverride", 7L));
        beans.setAttribute(bean, new Attribute("EnforceOverride", Boolean.TRUE));
        nodeB.limiter().overrides().refresh();
        assertThat(nodeB.limiter().overrides().limit()).isEqualTo(7);
        assertThat(nodeB.limiter().overrides().enforce()).isTrue();
        assertThat(admittedOf(nodeA, client, 10)).as("the override's 7").isEqualTo(2);
        beans.invoke(bean, "clearOverrides", new Object[0], new String[0]);
        nodeB.limiter().overrides().refresh();
        assertThat(nodeB.limiter().overrides().limit()).isEqualTo(-1);

        String peeked = (String) beans.invoke(bean, "peekClient", new Object[] {client}, new String[] {String.class.getName()});
        assertThat(peeked).contains(policy + ": denied");
        beans.invoke(bean, "resetClient", new Object[] {client}, new String[] {String.class.getName()});
        assertThat(admittedOf(nodeA, client, 1)).as("reset").isEqualTo(1);
        nodeB.limiter().overrides().refresh();
    }

    /**
     * Steps timed on this JVM's clock, for the paths that need an entry to have left a window while
     * another has not: Redis stamps each step between its start and its end, so the bounds tell
     * whether Redis saw the order meant. On a busy machine a pause may run long; then the path is
     * tried again ({@link #until}).
     */
    static final class WindowTiming {
        private final long window;
        private final List<long[]> steps = new ArrayList<>();

        WindowTiming(Duration window) {
            this.window = window.toNanos();
        }

        void step(Runnable step) {
            long start = System.nanoTime();
            step.run();
            steps.add(new long[] {start, System.nanoTime()});
        }

        /** Whether step {@code a}'s stamp is a window or more before step {@code b}'s. */
        boolean leftBefore(int a, int b) {
            return steps.get(b)[0] - steps.get(a)[1] >= window;
        }

        /** Whether step {@code a}'s stamp is less than a window before step {@code b}'s. */
        boolean within(int a, int b) {
            return steps.get(b)[1] - steps.get(a)[0] < window;
        }

        /** Runs tries (each returning whether its timing fit) until one fits, at most five. */
        static void until(java.util.function.IntPredicate attempt) {
            for (int tries = 0; !attempt.test(tries); tries++) {
                assertThat(tries).as("a try whose timing fits its window, in five").isLessThan(4);
            }
        }
    }

    /** The page's lines: each marked user, and the additions. */
    static final class SecurityPage {
        private static final Pattern MARKED = Pattern.compile("<!-- redis acl \\(([^)]+)\\)[^>]*-->\\s*```[^\\n]*\\n(.*?)\\n\\s*```",
                Pattern.DOTALL);
        private final Map<String, String> blocks;

        private SecurityPage(Map<String, String> blocks) {
            this.blocks = blocks;
        }

        static SecurityPage read(Path page) {
            String text;
            try {
                text = Files.readString(page, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + page, e);
            }
            Map<String, String> blocks = new HashMap<>();
            Matcher marked = MARKED.matcher(text);
            while (marked.find()) {
                String block = marked.group(2).trim();
                assertThat(block).as("docs/security.md: one line of rules under " + marked.group(1)).doesNotContain("\n", "`");
                blocks.put(marked.group(1), block);
            }
            return new SecurityPage(blocks);
        }

        /** The page's {@code ACL SETUSER} for {@code transport=<transport>}. */
        AclUser user(String transport) {
            String line = blocks.get("transport=" + transport);
            assertThat(line).as("docs/security.md marks the user of transport=" + transport).isNotNull();
            return AclUser.parse(line);
        }

        /** The rules a marked addition adds. */
        List<String> addition(String what) {
            String line = blocks.get(what);
            assertThat(line).as("docs/security.md marks the addition for " + what).isNotNull();
            return Arrays.asList(line.split("\\s+"));
        }
    }

    /** One {@code ACL SETUSER ratelimit …} line of the page: its rules after the user's name. */
    static final class AclUser {
        final List<String> rules;

        private AclUser(List<String> rules) {
            this.rules = rules;
        }

        static AclUser parse(String line) {
            List<String> words = Arrays.asList(line.trim().split("\\s+"));
            assertThat(words.subList(0, 3)).as(line).containsExactly("ACL", "SETUSER", "ratelimit");
            List<String> rules = words.subList(3, words.size());
            // What the test puts in: its password and its key prefix; a page that granted every key,
            // every command or a category would not be this page.
            assertThat(rules).as(line).startsWith("reset", "on", ">change-me", "~ratelimit:*")
                    .noneMatch(rule -> rule.startsWith("+@") || rule.equals("allcommands") || rule.startsWith("~*")
                            || rule.equals("allkeys") || rule.startsWith("&"));
            return new AclUser(rules);
        }
    }
}
