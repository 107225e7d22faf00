package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpPolicyTest {
    private static final Map<String, String> ENV = Map.of("API_LIMIT", "250", "REDIS_HOST", "redis.internal");

    private static PolicyReader parser(Map<String, String> contextParams) {
        return HttpPolicy.parser("init-param '%s'")
                .defaults(contextParams, "context-param 'ratelimit.%s'")
                .defaultPolicyName("api", "the filter-name")
                .lookups(ENV::get, Map.of("app.window", "10s")::get);
    }

    private static HttpPolicy parse(String... pairs) {
        return parser(Map.of()).parse(words(pairs));
    }

    private static Map<String, String> words(String... pairs) {
        Map<String, String> words = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            words.put(pairs[i], pairs[i + 1]);
        }
        return words;
    }

    @Test
    void theDefaultsAreThoseOfTheDesignTable() {
        HttpPolicy policy = parse("limit", "100", "window", "1m");
        assertThat(policy.policyName()).isEqualTo("api");
        assertThat(policy.rule().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
        assertThat(policy.rule().limit()).isEqualTo(100);
        assertThat(policy.rule().window()).isEqualTo(Duration.ofMinutes(1));
        assertThat(policy.rule().cost()).isEqualTo(1);
        assertThat(policy.redisSettings().host()).isEqualTo("localhost");
        assertThat(policy.redisSettings().timeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(policy.redisSettings().poolSize()).isEqualTo(32);
        assertThat(policy.enforce()).isTrue();
        assertThat(policy.statusCode()).isEqualTo(429);
        assertThat(policy.headerMode()).isEqualTo(HeaderMode.DRAFT);
        assertThat(policy.limiters().failurePolicy()).isEqualTo(FailurePolicy.ALLOW);
        assertThat(policy.limiters().localDenyCache()).isTrue();
        assertThat(policy.requests().clientKey(new FakeRequest().from("203.0.113.9"))).isEqualTo("203.0.113.9");
        assertThat(policy).hasToString("policy 'api': sliding-log 100 per 1m, cost 1, key ip, trustedProxies none, "
                + "methods all, excludePaths none, enforce true, statusCode 429, headers draft, transport lua, "
                + "onRedisFailure allow, localDenyCache true, jmx true, keyPrefix 'ratelimit:', redis redis://localhost:6379 "
                + "(timeout 200ms, pool 32, pool wait 200ms)");
    }

    @Test
    void everyWordIsRead() {
        HttpPolicy policy = parse("algorithm", "token-bucket", "limit", "10", "window", "PT30S", "burst", "20",
                "cost", "2", "key", "ip+header:X-Api-Key", "trustedProxies", "10.0.0.0/8", "policyName", "search",
                "keyPrefix", "rl:", "methods", "post, put", "excludePaths", "/health,/static/*", "enforce", "false",
                "onRedisFailure", "deny", "statusCode", "503", "headers", "both", "transport", "lua",
                "localDenyCache", "false", "jmx", "false", "redisUri", "redis://:pw@cache:6380/3", "redisTimeout", "1s",
                "redisPoolSize", "8");
        assertThat(policy.toString()).isEqualTo("policy 'search': token-bucket 10 per 30s, burst 20, cost 2, "
                + "key ip+header:X-Api-Key, trustedProxies 10.0.0.0/8, methods POST,PUT, "
                + "excludePaths /health,/static/*, enforce false, statusCode 503, headers both, transport lua, "
                + "onRedisFailure deny, localDenyCache false, jmx false, keyPrefix 'rl:', redis redis://****@cache:6380/3 "
                + "(timeout 1s, pool 8, pool wait 1s)");
    }

    @Test
    void anInFlightLimitReadsAsOneNotAsARate() {
        HttpPolicy policy = parse("algorithm", "concurrency", "limit", "3", "window", "2m");
        assertThat(policy.toString()).startsWith("policy 'api': concurrency 3 in flight (lease timeout 2m), cost 1,");
        assertThat(HttpPolicy.quotaText(policy.rule())).isEqualTo("3 in flight (lease timeout 2m)");
        assertThat(policy.rule().toString()).contains("concurrency 3 in flight (lease timeout 2m)");
    }

    @Test
    void theForwardingHeaderAndIpv6PrefixReachTheKeyAndShowWhenNotDefault() {
        HttpPolicy policy = parse("limit", "1", "window", "1m", "trustedProxies", "10.0.0.0/8",
                "forwardedHeader", "forwarded", "ipv6Prefix", "48");
        assertThat(policy.toString()).contains(", trustedProxies 10.0.0.0/8, forwardedHeader Forwarded, "
                + "ipv6Prefix 48, methods all,");
        FakeRequest request = new FakeRequest().from("10.0.0.1")
                .header("Forwarded", "for=\"[2001:db8:1:2::3]\"").header("X-Forwarded-For", "198.51.100.4");
        assertThat(policy.requests().clientKey(request)).isEqualTo("2001:db8:1::/48");
        HttpPolicy defaults = parse("limit", "1", "window", "1m", "trustedProxies", "10.0.0.0/8",
                "forwardedHeader", "X-FORWARDED-FOR", "ipv6Prefix", "64");
        assertThat(defaults.toString()).contains(", trustedProxies 10.0.0.0/8, methods all,");
        assertThat(defaults.requests().clientKey(request)).isEqualTo("198.51.100.4");
    }

    @Test
    void methodsAndExcludedPathsDecideWhatIsLimited() {
        HttpPolicy policy = parse("limit", "1", "window", "1s", "methods", "POST", "excludePaths", "/health,/static/*");
        assertThat(policy.requests().appliesTo("POST", "/api/orders")).isTrue();
        assertThat(policy.requests().appliesTo("GET", "/api/orders")).isFalse();
        assertThat(policy.requests().appliesTo("POST", "/health")).isFalse();
        assertThat(policy.requests().appliesTo("POST", "/health/deep")).as("exact only").isTrue();
        assertThat(policy.requests().appliesTo("POST", "/static")).isFalse();
        assertThat(policy.requests().appliesTo("POST", "/static/app.js")).isFalse();
        assertThat(policy.requests().appliesTo("POST", "/staticky")).isTrue();
    }

    @Test
    void limitingGetLimitsHeadToo() {
        HttpPolicy policy = parse("limit", "1", "window", "1s", "methods", "get");
        assertThat(policy.requests().appliesTo("GET", "/")).isTrue();
        assertThat(policy.requests().appliesTo("HEAD", "/")).as("HEAD runs the GET handler").isTrue();
        assertThat(policy.requests().appliesTo("POST", "/")).isFalse();
        assertThat(parse("limit", "1", "window", "1s", "methods", "POST").requests().appliesTo("HEAD", "/")).isFalse();
    }

    @Test
    void contextParamsAreDefaultsAndInitParamsWin() {
        HttpPolicy policy = parser(Map.of("limit", "5", "window", "1h", "redisUri", "redis://shared:6379"))
                .parse(words("limit", "7"));
        assertThat(policy.rule().limit()).isEqualTo(7);
        assertThat(policy.rule().window()).isEqualTo(Duration.ofHours(1));
        assertThat(policy.redisSettings().host()).isEqualTo("shared");
    }

    @Test
    void countStatusIsRefusedWithConcurrencyWhoseLeasesEndWithEveryRequest() {
        assertThatThrownBy(() -> parse("limit", "3", "window", "1m", "algorithm", "concurrency", "countStatus", "401"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'countStatus' counts finished requests, but init-param 'algorithm' is "
                        + "'concurrency', which counts requests in flight (countStatus was '401')");
    }

    @Test
    void theCircuitBreakerIsSetByInitParamsAndDefaultsToThreeFailuresAndHalfASecond() {
        assertThat(parse("limit", "1", "window", "1m").redisSettings().breakerCoolDown())
                .isEqualTo(Duration.ofMillis(500));
        HttpPolicy policy = parse("limit", "1", "window", "1m", "redisBreakerFailures", "5",
                "redisBreakerCoolDown", "250ms");
        assertThat(policy.redisSettings().breakerFailures()).isEqualTo(5);
        assertThat(policy.redisSettings().breakerCoolDown()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void coalescingIsOnUnlessAnInitParamTurnsItOff() {
        assertThat(parse("limit", "1", "window", "1m").redisSettings().coalescing()).isTrue();
        HttpPolicy policy = parse("limit", "1", "window", "1m", "redisCoalescing", "false");
        assertThat(policy.redisSettings().coalescing()).isFalse();
        assertThat(policy.redisSettings().toString()).endsWith(", coalescing off)");
        // Another client: policies that differ here cannot share one.
        assertThat(policy.redisSettings()).isNotEqualTo(parse("limit", "1", "window", "1m").redisSettings());
    }

    @Test
    void placeholdersComeFromTheEnvironmentAndSystemProperties() {
        HttpPolicy policy = parse("limit", "${env:API_LIMIT}", "window", "${sys:app.window}",
                "redisUri", "redis://${env:REDIS_HOST}:${env:REDIS_PORT:-6390}", "keyPrefix", "${env:NOPE:-}");
        assertThat(policy.rule().limit()).isEqualTo(250);
        assertThat(policy.rule().window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(policy.redisSettings().host()).isEqualTo("redis.internal");
        assertThat(policy.redisSettings().port()).isEqualTo(6390);
        assertThat(policy.toString()).contains("keyPrefix 'ratelimit:'");
    }

    @Test
    void aDefaultFollowsTheFirstColonAsTomcatLeavesItOrTheShellsColonDash() {
        // Tomcat turns ${…:-default} in web.xml into its default before the filter sees it: the
        // form that survives every server is ${env:NAME:default}. A default may hold colons.
        HttpPolicy policy = parse("limit", "${env:UNSET_LIMIT:40}", "window", "${sys:unset.window:-2s}",
                "redisUri", "${env:UNSET_URL:redis://cache.internal:6391}", "keyPrefix", "${env:UNSET_PREFIX:}");
        assertThat(policy.rule().limit()).isEqualTo(40);
        assertThat(policy.rule().window()).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.redisSettings().host()).isEqualTo("cache.internal");
        assertThat(policy.redisSettings().port()).isEqualTo(6391);
        assertThat(policy.toString()).contains("keyPrefix 'ratelimit:'");
        assertThat(parse("limit", "${env:API_LIMIT:40}", "window", "1m").rule().limit()).as("set wins").isEqualTo(250);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "limit          | abc       | init-param 'limit' must be a whole number of at least 1, such as 100, but was 'abc'",
        "limit          | 0         | init-param 'limit' must be a whole number of at least 1, such as 100, but was '0'",
        "window         | -1s       | init-param 'window' must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M, but was '-1s'",
        "redisBreakerFailures | 0   | init-param 'redisBreakerFailures' must be a whole number between 1 and 1000, but was '0'",
        "redisBreakerCoolDown | 11m | init-param 'redisBreakerCoolDown' must be a duration from 1ms to 10m, but was '11m'",
        "redisBreakerCoolDown | 0ms | init-param 'redisBreakerCoolDown' must be a duration from 1ms to 10m, but was '0ms'",
        "redisCoalescing | yes      | init-param 'redisCoalescing' must be true or false, but was 'yes'",
        "calendar       | year      | init-param 'calendar' must be one of day, week, month, but was 'year'",
        "countStatus    | 6xx       | init-param 'countStatus' must be HTTP statuses or classes such as 401,403 or 4xx, but was '6xx'",
        "countStatus    | 4o1       | init-param 'countStatus' must be HTTP statuses or classes such as 401,403 or 4xx, but was '4o1'",
        "timeZone       | Mars/Base | init-param 'timeZone' must be a time zone such as UTC or Europe/Berlin, but was 'Mars/Base'",
        "window         | 0s        | init-param 'window' must be between 1ms and 365d, but was 0ms",
        "window         | 400d      | init-param 'window' must be between 1ms and 365d, but was 400d",
        "algorithm      | fast      | init-param 'algorithm' must be one of fixed-window, sliding-log, sliding-window, token-bucket, leaky-bucket, gcra, concurrency, but was 'fast'",
        "key            | header:   | init-param 'key' must be ip, user, session, global, header:NAME, param:NAME or cookie:NAME, joined with '+', but was 'header:' ('header:' names no header)",
        "trustedProxies | 10.0.0/8  | init-param 'trustedProxies' must list CIDR blocks such as 10.0.0.0/8 or 2001:db8::/32 separated by commas, but '10.0.0/8' in '10.0.0/8' is not one",
        "forwardedHeader | X-Real-IP | init-param 'forwardedHeader' must be X-Forwarded-For or Forwarded, but was 'X-Real-IP'",
        "ipv6Prefix     | 0         | init-param 'ipv6Prefix' must be a whole number between 1 and 128, but was '0'",
        "ipv6Prefix     | 129       | init-param 'ipv6Prefix' must be a whole number between 1 and 128, but was '129'",
        "ipv6Prefix     | /64       | init-param 'ipv6Prefix' must be a whole number between 1 and 128, but was '/64'",
        "burst          | 5         | init-param 'burst': burst applies only to token-bucket, leaky-bucket and gcra, but was 5 for algorithm sliding-log",
        "cost           | 101       | init-param 'cost' must be between 1 and the rule's capacity 100, but was 101",
        "enforce        | yes       | init-param 'enforce' must be true or false, but was 'yes'",
        "statusCode     | 200       | init-param 'statusCode' must be an HTTP error status between 400 and 599, such as 429, but was '200'",
        "headers        | all       | init-param 'headers' must be one of draft, legacy, both, none, but was 'all'",
        "onRedisFailure | ignore    | init-param 'onRedisFailure' must be one of allow, deny, local, but was 'ignore'",
        "localLimit     | 3         | init-param 'localLimit' applies only with onRedisFailure=local, but init-param 'onRedisFailure' is 'allow' (localLimit was '3')",
        "transport      | pipeline  | init-param 'transport' must be one of lua, transaction, but was 'pipeline'",
        "methods        | GET;POST  | init-param 'methods' must list HTTP methods such as GET,POST, but 'GET;POST' in 'GET;POST' is not one",
        "excludePaths   | health    | init-param 'excludePaths' must list paths starting with '/', optionally ending in '/*', but 'health' in 'health' is not one",
        "policyName     | my api    | init-param 'policyName' must be 1 to 64 printable ASCII characters without blanks or braces, but was 'my api'",
        "redisUri       | http://x  | init-param 'redisUri' must look like redis://[user:password@]host[:port][/database] (rediss:// for TLS), but was 'http://x'",
        "redisTimeout   | 0ms       | init-param 'redisTimeout' must be between 1ms and 1m, but was 0ms",
        "redisPoolSize  | many      | init-param 'redisPoolSize' must be a whole number between 1 and 10000, but was 'many'",
        "redisClusterNodes | a:b    | init-param 'redisClusterNodes' must list host:port pairs separated by commas, but 'a:b' in 'a:b' is not one",
    })
    void badValuesAreNamedWithTheirValue(String name, String value, String message) {
        Map<String, String> words = words("limit", "100", "window", "1m");
        words.put(name, value);
        assertThatThrownBy(() -> parser(Map.of()).parse(words))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void theTransactionTransportRefusesAlgorithmsItCannotDecideNamingTheSetting() {
        assertThatThrownBy(() -> parse("limit", "100", "window", "1m", "algorithm", "gcra", "transport", "transaction"))
                .hasMessage("init-param 'transport': transport 'transaction' supports exactly one rule, of fixed-window "
                        + "or sliding-log (MULTI/EXEC cannot make a decision all or nothing), but the rules were "
                        + "[100/1m: gcra 100 per 1m, burst 100]; use transport 'lua' for other algorithms and for several rules");
        assertThat(parse("limit", "100", "window", "1m", "transport", "transaction").toString())
                .contains("sliding-log", "transport transaction");
    }

    @Test
    void unknownAndMissingWordsAreErrors() {
        assertThatThrownBy(() -> parse("limt", "100", "window", "1m"))
                .hasMessageStartingWith("unknown init-param 'limt' (a typo?); the known names are redisUri, ");
        assertThatThrownBy(() -> parser(Map.of("windw", "1m")).parse(words("limit", "1", "window", "1m")))
                .hasMessageStartingWith("unknown context-param 'ratelimit.windw' (a typo?)");
        assertThatThrownBy(() -> parse("window", "1m"))
                .hasMessage("init-param 'limit' is required: a whole number of at least 1, such as 100");
        assertThatThrownBy(() -> parse("limit", "1"))
                .hasMessage("init-param 'window' is required: a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M");
    }

    @Test
    void adaptiveLimitsAreOffUnlessAFloorIsGiven() {
        assertThat(parse("limit", "1", "window", "1m").limiters().adaptive()).isFalse();
        HttpPolicy adaptive = parse("limit", "100", "window", "1m", "adaptive", "25%", "adaptiveLatency", "200ms");
        assertThat(adaptive.limiters().adaptive()).isTrue();
        assertThat(adaptive.toString()).contains(", adaptive, floor 25%, latency target 200ms,");
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "adaptive", "lots"))
                .hasMessage("init-param 'adaptive' must be off or the lowest limit as a percentage of the configured "
                        + "one, such as 25%, but was 'lots'");
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "adaptiveLatency", "200ms"))
                .hasMessage("init-param 'adaptiveLatency' needs adaptive limits on, but init-param 'adaptive' is 'off'");
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "algorithm", "token-bucket", "adaptive", "50%"))
                .hasMessageStartingWith("init-param 'adaptive': adaptive limits apply to fixed-window");
    }

    @Test
    void aBadDefaultIsBlamedOnTheContextParam() {
        assertThatThrownBy(() -> parser(Map.of("window", "soon")).parse(words("limit", "1")))
                .hasMessage("context-param 'ratelimit.window' must be a duration such as 500ms, 10s, 1m, 1h, 1d or "
                        + "PT1M, but was 'soon'");
    }

    @Test
    void aFilterNameThatCannotBeAPolicyNameSaysSo() {
        assertThatThrownBy(() -> HttpPolicy.parser("init-param '%s'").defaultPolicyName("My Filter", "the filter-name")
                .parse(words("limit", "1", "window", "1s")))
                .hasMessage("policyName (by default the filter-name) must be 1 to 64 printable ASCII characters "
                        + "without blanks or braces, but was 'My Filter'");
    }

    @Test
    void placeholderMistakesAreNamed() {
        assertThatThrownBy(() -> parse("limit", "${env:UNSET_LIMIT}", "window", "1m"))
                .hasMessage("init-param 'limit' refers to ${env:UNSET_LIMIT}, which is not set; set it or give a "
                        + "default: ${env:UNSET_LIMIT:value}");
        assertThatThrownBy(() -> parse("limit", "${jndi:x}", "window", "1m"))
                .hasMessage("init-param 'limit' has the placeholder '${jndi:x}', but placeholders must be ${env:NAME}, "
                        + "${env:NAME:default} or ${sys:name}");
    }

    @Test
    void aPasswordNeverAppearsInAnError() {
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "redisUri", "redis://u:hunter2@h/x"))
                .hasMessageNotContaining("hunter2").hasMessageContaining("redis://****@h/x");
    }

    @Test
    void aPasswordInAMistypedUriNeverAppearsEither() {
        for (String uri : new String[] {"redis:/:hunter2@host", "redis:hunter2@host", ":hunter2@host",
                "redis://u:hunter2@host:notaport", "rediss://:a@b:hunter2@host/0", "http://u:hunter2@host"}) {
            assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "redisUri", uri))
                    .as(uri).hasMessageNotContaining("hunter2").hasMessageContaining("****@");
        }
    }

    @Test
    void keyResolverClassIsLoadedAndExcludesKey() {
        HttpPolicy policy = parse("limit", "1", "window", "1m", "keyResolverClass", TenantKey.class.getName());
        assertThat(policy.requests().clientKey(new FakeRequest().header("X-Tenant", "acme"))).isEqualTo("tenant-acme");
        assertThat(policy.requests().clientKey(new FakeRequest())).isEqualTo(PolicyRequests.MISSING_KEY);
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "keyResolverClass", "com.example.Nope"))
                .hasMessage("init-param 'keyResolverClass' must name a public class implementing "
                        + "dev.ratelimit.http.KeyResolver with a public no-argument constructor, but was "
                        + "'com.example.Nope' (no such class is visible to the webapp)");
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "keyResolverClass", "java.lang.String"))
                .hasMessageEndingWith("(it does not implement dev.ratelimit.http.KeyResolver)");
        assertThatThrownBy(() -> parse("limit", "1", "window", "1m", "key", "ip", "keyResolverClass",
                TenantKey.class.getName()))
                .hasMessageStartingWith("init-param 'key' and init-param 'keyResolverClass' exclude each other");
    }

    /** A custom resolver, as a user would write one. */
    public static final class TenantKey implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            String tenant = request.header("X-Tenant");
            return tenant == null ? null : "tenant-" + tenant;
        }
    }

    @ParameterizedTest(name = "localLimit={0}")
    @CsvSource(delimiter = '|', value = {
        "abc  | init-param 'localLimit' must be a whole number of at least 1, but was 'abc'",
        "0    | init-param 'localLimit' must be a whole number between 1 and 1125899906842624, but was 0",
        "-2   | init-param 'localLimit' must be a whole number between 1 and 1125899906842624, but was -2",
        "2.5  | init-param 'localLimit' must be a whole number of at least 1, but was '2.5'",
    })
    void aBadLocalLimitIsNamedWithItsValue(String value, String message) {
        assertThatThrownBy(() -> parse("limit", "100", "window", "1m", "onRedisFailure", "local", "localLimit", value))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void localLimitIsTheLimitUnlessSetAndOnlyWithOnRedisFailureLocal() {
        HttpPolicy byDefault = parse("limit", "100", "window", "1m", "onRedisFailure", "local");
        assertThat(byDefault.limiters().failurePolicy()).isEqualTo(FailurePolicy.LOCAL);
        assertThat(byDefault.limiters().localLimit()).isEqualTo(100);
        assertThat(byDefault.toString()).contains(", onRedisFailure local, localLimit 100, ");

        HttpPolicy set = parser(Map.of("onRedisFailure", "local", "localLimit", "7")).parse(words("limit", "100",
                "window", "1m", "algorithm", "token-bucket", "burst", "50"));
        assertThat(set.limiters().localLimit()).isEqualTo(7);
        assertThat(parse("limit", "100", "window", "1m").limiters().localLimit()).isNull();
        assertThat(parse("limit", "100", "window", "1m").toString()).doesNotContain("localLimit");

        assertThatThrownBy(() -> parser(Map.of("localLimit", "7")).parse(words("limit", "100", "window", "1m",
                "onRedisFailure", "deny")))
                .hasMessage("context-param 'ratelimit.localLimit' applies only with onRedisFailure=local, but "
                        + "init-param 'onRedisFailure' is 'deny' (localLimit was '7')");
    }
}
