package dev.ratelimit.internal.http.answer;

import static dev.ratelimit.internal.scripts.FixedWindowAt.counter;
import static dev.ratelimit.internal.scripts.FixedWindowAt.gone;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.scripts.DecisionAccess;
import dev.ratelimit.internal.scripts.FixedWindowAt;
import dev.ratelimit.internal.scripts.FrozenClockScript;
import dev.ratelimit.internal.scripts.ScriptCalls;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The examples of draft-ietf-httpapi-ratelimit-headers-11 (23 May 2026), each field the draft shows
 * reproduced from a policy that matches it: the policy from init-params as web.xml gives them, its
 * decision from the production script in Redis in the state the example describes, the answer from
 * {@link HttpAnswer}. fixed-window reads its clock from its counter's TTL, so a window "50 s before
 * its end" is a counter that expires 49.999 s from the script's call ({@link FixedWindowAt}): the
 * script's reset is then exactly 50 s, nothing sleeps and nothing is timed.
 *
 * <p>A field value is compared byte for byte. A list the draft writes in one field line is compared
 * with the field lines of several policies (several filters) as HTTP joins them, with ", " (RFC 9110
 * 5.3); where the draft writes "," alone, RFC 9651 parses both alike. A problem body is compared
 * member by member: the draft's own JSON is not always well formed (B.1.4 lacks a comma), and these
 * bodies carry members of their own ({@code detail}, {@code retryAfter}, {@code policy}).
 *
 * <p>Not reproduced, and why (docs/configuration.md, "What the headers do not do"): partition keys
 * ({@code pk}, 3.2 and 4.2: a client key must not leave the server; the examples are compared
 * without their {@code pk}); {@code qu="content-bytes"} (3.2: the quota counts permits, never bytes);
 * a list of two violated policies (5.1: the first policy that refuses answers alone); 5.1's and
 * 5.3's titles (the title here is the status's reason phrase, as in B.1.4); an available quota equal
 * to the whole quota (8.5's example of what a server should not send: an admission always takes a
 * permit); an available quota lowered below the count at an unchanged {@code q} (B.1.3's second
 * response: adaptive limits lower {@code q} with it); and the fields of the FAQ and of the appendix
 * "RateLimit header fields currently used on the web" with parameters the draft does not define
 * ({@code burst}, {@code q} on {@code RateLimit}).
 */
class DraftExamplesIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long T0 = 1_700_000_000_000_000L;

    /** A policy from init-params, named as the draft's example names it. */
    private static HttpPolicy policy(String name, String... pairs) {
        Map<String, String> params = new HashMap<>();
        params.put("algorithm", "fixed-window");
        for (int i = 0; i < pairs.length; i += 2) {
            params.put(pairs[i], pairs[i + 1]);
        }
        return HttpPolicy.parser("init-param '%s'").defaultPolicyName(name, "the filter-name").parse(params);
    }

    /** One response's headers, written by the answers of one or more policies in turn, as filters in a chain. */
    private static final class Response {
        final Map<String, List<String>> fields = new LinkedHashMap<>();
        final HttpAnswer.HeaderSink sink = HttpAnswer.HeaderSink.of(
                (name, value) -> fields.computeIfAbsent(name, n -> new ArrayList<>()).add(value),
                (name, value) -> fields.put(name, new ArrayList<>(Arrays.asList(value))));

        Response with(HttpPolicy policy, Decision decision) {
            new HttpAnswer(policy).writeHeaders(decision, sink);
            return this;
        }

        /** The field's lines as one field value, joined as HTTP joins them (RFC 9110 5.3). */
        String field(String name) {
            return String.join(", ", fields.getOrDefault(name, List.of()));
        }

        List<String> lines(String name) {
            return fields.getOrDefault(name, List.of());
        }
    }

    /** A list field's members as the draft writes them: the values here hold no comma. */
    private static List<String> members(String draftValue) {
        List<String> members = new ArrayList<>();
        for (String member : draftValue.split(",")) {
            members.add(member.trim());
        }
        return members;
    }

    /**
     * The decision on a request taking one permit of the policy's fixed window, which holds {@code used}
     * permits {@code leftMillis} before its end, or none ({@code used < 0}: the request opens a window).
     */
    private static Decision fixedWindow(HttpPolicy policy, long used, long leftMillis) {
        Rule rule = policy.rule();
        FrozenClockScript script = new FrozenClockScript(redis.client(), rule);
        String key = redis.key(policy.policyName());
        FixedWindowAt.Counter state = used < 0 ? gone(key) : counter(key, used, leftMillis);
        return decision(rule, FixedWindowAt.run(redis.client(), script, script.args(true, 1), state));
    }

    /** A one-rule reply {all_allowed, allowed, remaining, retry_after_us, reset_after_us}, read as ScriptCalls reads it. */
    private static Decision decision(Rule rule, List<Long> reply) {
        return Decision.of(reply.get(1) == 1, rule, reply.get(2), ScriptCalls.micros(reply.get(3)),
                ScriptCalls.micros(reply.get(4)));
    }

    private static Response answer(HttpPolicy policy, Decision decision) {
        return new Response().with(policy, decision);
    }

    /** Two filters' answers to one request, each policy's fixed window in the state given, as {@link #fixedWindow}. */
    private static Response twoFilters(HttpPolicy first, long firstUsed, long firstLeftMillis, HttpPolicy second,
            long secondUsed, long secondLeftMillis) {
        return new Response().with(first, fixedWindow(first, firstUsed, firstLeftMillis))
                .with(second, fixedWindow(second, secondUsed, secondLeftMillis));
    }

    /**
     * The examples of one {@code RateLimit} line, each the answer to a request that takes one permit
     * of the named fixed window: {@code used} permits taken before it, {@code leftMillis} before the
     * window's end, or (used -1) the window the request opens.
     */
    @ParameterizedTest(name = "{0}: RateLimit: {6}")
    @CsvSource(delimiter = '|', textBlock = """
            4        | default       | 100  | 1m | 49   | 29999    | "default";r=50;t=30
            6        | problemPolicy | 10   | 1m | 9    | 9999     | "problemPolicy";r=0;t=10
            7        | default       | 10   | 1m | 8    | 6999     | "default";r=1;t=7
            8.5      | daily         | 2    | 1d | -1   | 0        | "daily";r=1;t=86400
            B.1.1    | default       | 10   | 1m | 9    | 49999    | "default";r=0;t=50
            B.1.2    | dayLimit      | 5000 | 1d | 4899 | 35999999 | "dayLimit";r=100;t=36000
            B.2.2    | dynamic       | 100  | 1m | 90   | 49999    | "dynamic";r=9;t=50
            FAQ 8    | default       | 51   | 1m | -1   | 0        | "default";r=50;t=60
            FAQ 8    | sliding       | 100  | 1m | 49   | 43999    | "sliding";r=50;t=44
            """)
    void rateLimitLines(String section, String name, String limit, String window, long used, long leftMillis,
            String expected) {
        HttpPolicy policy = policy(name, "limit", limit, "window", window);
        assertThat(answer(policy, fixedWindow(policy, used, leftMillis)).field("RateLimit")).isEqualTo(expected);
    }

    @Test
    @DisplayName("3: RateLimit-Policy: \"burst\";q=100;w=60,\"daily\";q=1000;w=86400")
    void twoPoliciesInOneList() {
        HttpPolicy burst = policy("burst", "limit", "100", "window", "1m");
        HttpPolicy daily = policy("daily", "limit", "1000", "window", "1d");
        assertThat(twoFilters(burst, -1, 0, daily, -1, 0).lines("RateLimit-Policy")).containsExactlyElementsOf(
                members("\"burst\";q=100;w=60,\"daily\";q=1000;w=86400"));
    }

    @Test
    @DisplayName("3.2: the RateLimit-Policy examples, partition keys aside")
    void policyFieldExamples() {
        HttpPolicy defaults = policy("default", "limit", "100", "window", "10s");
        assertThat(answer(defaults, fixedWindow(defaults, -1, 0)).field("RateLimit-Policy"))
                .isEqualTo("\"default\";q=100;w=10");

        HttpPolicy permin = policy("permin", "limit", "50", "window", "1m");
        HttpPolicy perhr = policy("perhr", "limit", "1000", "window", "1h");
        assertThat(twoFilters(permin, -1, 0, perhr, -1, 0).lines("RateLimit-Policy")).containsExactlyElementsOf(
                members("\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600"));

        HttpPolicy peruser = policy("peruser", "limit", "100", "window", "1m", "key", "user");
        assertThat(answer(peruser, fixedWindow(peruser, -1, 0)).field("RateLimit-Policy"))
                .as("\"peruser\";q=100;w=60;pk=:cHsdsRa894==: without its partition key")
                .isEqualTo("\"peruser\";q=100;w=60");
    }

    @Test
    @DisplayName("4.2: \"default\";r=999, an available quota with no time window")
    void anAvailableQuotaWithoutATimeWindow() {
        // "an available quota of 999 requests for a partition key that has no time window": an
        // in-flight limit's admission, the first of 1000.
        HttpPolicy inFlight = policy("default", "algorithm", "concurrency", "limit", "1000", "window", "30s");
        FrozenClockScript script = new FrozenClockScript(redis.client(), inFlight.rule());
        List<String> args = new ArrayList<>(script.args(true, 1));
        args.add("lease:draft");
        args.add(Long.toString(T0));
        Decision admitted = decision(inFlight.rule(), script.run(args, redis.key("in-flight")));
        Response response = answer(inFlight, admitted);
        assertThat(response.field("RateLimit")).as("\"default\";r=999;pk=:dHJpYWwxMjEzMjM=: without its partition key")
                .isEqualTo("\"default\";r=999");
        assertThat(response.field("RateLimit-Policy")).isEqualTo("\"default\";q=1000;qu=\"concurrent-requests\"");
    }

    @Test
    @DisplayName("8.5: \"somepolicy\";q=10000;w=1000")
    void resourceExhaustionExamples() {
        HttpPolicy some = policy("somepolicy", "limit", "10000", "window", "1000s");
        assertThat(answer(some, fixedWindow(some, -1, 0)).field("RateLimit-Policy")).isEqualTo("\"somepolicy\";q=10000;w=1000");
    }

    @Test
    @DisplayName("B.1.1: served in a dry run, \"default\";r=0;t=48")
    void throttlingInformationInResponses() {
        HttpPolicy dryRun = policy("default", "limit", "10", "window", "1m", "enforce", "false");
        Decision overTheLimit = fixedWindow(dryRun, 10, 47_999);
        assertThat(overTheLimit.allowed()).as("enforce=false serves what it would refuse").isFalse();
        assertThat(answer(dryRun, overTheLimit).field("RateLimit")).isEqualTo("\"default\";r=0;t=48");
    }

    @Test
    @DisplayName("B.1.3: \"basic\";q=100;w=60 and \"basic\";r=60;t=58")
    void limitingConcurrency() {
        HttpPolicy basic = policy("basic", "limit", "100", "window", "1m");
        Response response = answer(basic, fixedWindow(basic, 39, 57_999));
        assertThat(response.field("RateLimit-Policy")).isEqualTo("\"basic\";q=100;w=60");
        assertThat(response.field("RateLimit")).isEqualTo("\"basic\";r=60;t=58");
    }

    @Test
    @DisplayName("B.1.4: 429, \"default\";r=0;t=5, Retry-After the same instant, a quota-exceeded body")
    void throttledResponse() {
        HttpPolicy defaults = policy("default", "limit", "100", "window", "1m");
        Decision refused = fixedWindow(defaults, 100, 4_999);
        Response response = answer(defaults, refused);
        assertThat(response.field("RateLimit")).isEqualTo("\"default\";r=0;t=5");
        // The draft's Retry-After is the HTTP-date 5 s after its Date; delay-seconds name the same instant.
        assertThat(response.field("Retry-After")).isEqualTo("5");
        HttpAnswer answer = new HttpAnswer(defaults);
        assertThat(answer.status(refused)).isEqualTo(429);
        assertThat(answer.problemJson(refused)).startsWith(
                "{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                        + "\"title\":\"Too Many Requests\",\"status\":429,")
                .contains(",\"violated-policies\":[\"default\"],");
    }

    @Test
    @DisplayName("B.2.1 and B.2.3: \"fixedwindow\";r=99;t=50, and 429 \"dynamic\";r=0;t=20")
    void responsesWithDefinedPolicies() {
        HttpPolicy fixed = policy("fixedwindow", "limit", "100", "window", "1m");
        // 99 left 50 s before the end: the window's first permit was given back (countStatus, chargeAfter).
        Response first = answer(fixed, fixedWindow(fixed, 0, 49_999));
        assertThat(first.field("RateLimit")).isEqualTo("\"fixedwindow\";r=99;t=50");
        assertThat(first.field("RateLimit-Policy")).isEqualTo("\"fixedwindow\";q=100;w=60");

        HttpPolicy pushBack = policy("dynamic", "limit", "15", "window", "20s");
        Decision refused = fixedWindow(pushBack, 15, 19_999);
        Response response = answer(pushBack, refused);
        assertThat(new HttpAnswer(pushBack).status(refused)).isEqualTo(429);
        assertThat(response.field("RateLimit-Policy")).isEqualTo("\"dynamic\";q=15;w=20");
        assertThat(response.field("RateLimit")).isEqualTo("\"dynamic\";r=0;t=20");
        assertThat(response.field("Retry-After")).as("not earlier than the effective window's end").isEqualTo("20");
    }

    /**
     * B.3: a 429 with Retry-After 20 whose "dynamic" policy still has 15 left for 40 s. Here the
     * refusal comes from a second policy in the chain, whose own item's t is the Retry-After: the
     * draft's rule (6) that Retry-After not point earlier than the effective window's end holds for
     * the policy that refuses; the draft's own example shows a Retry-After earlier than another
     * policy's t.
     */
    @Test
    @DisplayName("B.3: 429, Retry-After: 20, \"dynamic\";q=100;w=60 and \"dynamic\";r=15;t=40")
    void pushingBackWithRetryAfter() {
        HttpPolicy dynamic = policy("dynamic", "limit", "100", "window", "1m");
        HttpPolicy burst = policy("burst", "limit", "1", "window", "20s");
        Response response = twoFilters(dynamic, 84, 39_999, burst, 1, 19_999);

        assertThat(response.field("Retry-After")).isEqualTo("20");
        assertThat(response.lines("RateLimit-Policy")).containsExactly("\"dynamic\";q=100;w=60", "\"burst\";q=1;w=20");
        assertThat(response.lines("RateLimit")).containsExactly("\"dynamic\";r=15;t=40", "\"burst\";r=0;t=20");
    }

    @Test
    @DisplayName("B.3.1: \"hour\";q=1000;w=3600, \"day\";q=5000;w=86400 and \"day\";r=100;t=36000")
    void multipleWindows() {
        HttpPolicy hour = policy("hour", "limit", "1000", "window", "1h");
        HttpPolicy day = policy("day", "limit", "5000", "window", "1d");
        Response response = twoFilters(hour, 99, 1_799_999, day, 4899, 35_999_999);

        assertThat(response.field("RateLimit-Policy")).isEqualTo("\"hour\";q=1000;w=3600, \"day\";q=5000;w=86400");
        // The draft's server leaves out the hourly item (it MAY); these answers carry each policy's.
        assertThat(response.lines("RateLimit")).containsExactly("\"hour\";r=900;t=1800", "\"day\";r=100;t=36000");
    }

    @Test
    @DisplayName("5: the three problem types, with their recommended statuses")
    void problemTypes() {
        HttpPolicy daily = policy("daily", "limit", "100", "window", "1d");
        Decision overQuota = fixedWindow(daily, 100, 3_600_000);
        HttpAnswer quota = new HttpAnswer(daily);
        assertThat(quota.status(overQuota)).isEqualTo(429);
        assertThat(quota.problemJson(overQuota))
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
                .contains("\"violated-policies\":[\"daily\"]");

        HttpPolicy hourly = policy("hourly", "algorithm", "sliding-log", "limit", "100", "window", "1h",
                "penalty", "15m", "onRedisFailure", "deny");
        Decision boxed = DecisionAccess.get().penaltyDenial(hourly.rule(), 0, Duration.ofMinutes(15), Duration.ofHours(1),
                false);
        HttpAnswer abnormal = new HttpAnswer(hourly);
        assertThat(abnormal.status(boxed)).isEqualTo(429);
        assertThat(abnormal.problemJson(boxed))
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#abnormal-usage-detected\"")
                .contains("\"violated-policies\":[\"hourly\"]");

        Decision redisDown = Decision.degraded(false, hourly.rule(), Duration.ofSeconds(1));
        assertThat(abnormal.status(redisDown)).isEqualTo(503);
        assertThat(abnormal.problemJson(redisDown))
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\"")
                .as("no policy's quota was exceeded").doesNotContain("violated-policies");
    }
}
