package dev.ratelimit.internal.http.answer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpAnswerTest {

    private static HttpPolicy policy(String headers) {
        return HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(Map.of("limit", "100", "window", "1m", "headers", headers));
    }

    private static List<String> headers(Decision decision, HttpPolicy policy) {
        List<String> written = new ArrayList<>();
        new HttpAnswer(policy).writeHeaders(decision, new HttpAnswer.HeaderSink() {
            @Override
            public void add(String name, String value) {
                written.add(name + ": " + value);
            }

            @Override
            public void set(String name, String value) {
                written.add(name + ": " + value);
            }
        });
        return written;
    }

    private static Decision allowed(HttpPolicy policy) {
        return Decision.of(true, policy.rule(), 42, Duration.ZERO, Duration.ofMillis(16_200));
    }

    private static Decision denied(HttpPolicy policy) {
        return Decision.of(false, policy.rule(), 0, Duration.ofMillis(2_100), Duration.ofSeconds(30));
    }

    @Test
    void draftHeaders() {
        HttpPolicy draft = policy("draft");
        assertThat(headers(allowed(draft), draft))
                .containsExactly("RateLimit-Policy: \"api\";q=100;w=60", "RateLimit: \"api\";r=42;t=17");
        assertThat(headers(denied(draft), draft))
                .as("on a denial t is the Retry-After value")
                .containsExactly("Retry-After: 3", "RateLimit-Policy: \"api\";q=100;w=60", "RateLimit: \"api\";r=0;t=3");
    }

    @Test
    void aDecisionUnderAnotherLimitCarriesItsOwnLimitInThePolicyField() {
        HttpPolicy draft = policy("draft");
        Rule tier = Rule.of(Algorithm.FIXED_WINDOW, 7, Duration.ofMinutes(1));
        Decision underTier = Decision.of(true, tier, 6, Duration.ZERO, Duration.ofSeconds(60));

        assertThat(headers(underTier, draft)).containsExactly("RateLimit-Policy: \"api\";q=7;w=60",
                "RateLimit: \"api\";r=6;t=60");
        assertThat(headers(allowed(draft), draft)).as("the policy's own limit, after another one")
                .startsWith("RateLimit-Policy: \"api\";q=100;w=60");
    }

    @Test
    void anInFlightLimitCountsConcurrentRequestsWithoutATimeWindow() {
        HttpPolicy inFlight = HttpPolicy.parser("init-param '%s'").defaultPolicyName("exports", "the filter-name")
                .parse(Map.of("algorithm", "concurrency", "limit", "3", "window", "2m"));
        Decision admitted = Decision.of(true, inFlight.rule(), 2, Duration.ZERO, Duration.ofSeconds(95));
        Decision refused = Decision.of(false, inFlight.rule(), 0, Duration.ofMillis(41_500), Duration.ofSeconds(95));

        assertThat(headers(admitted, inFlight)).as("w would say 3 per 2 minutes; the lease timeout bounds no quota")
                .containsExactly("RateLimit-Policy: \"exports\";q=3;qu=\"concurrent-requests\"",
                        "RateLimit: \"exports\";r=2");
        assertThat(headers(refused, inFlight)).as("a refusal keeps t, the Retry-After value")
                .containsExactly("Retry-After: 42", "RateLimit-Policy: \"exports\";q=3;qu=\"concurrent-requests\"",
                        "RateLimit: \"exports\";r=0;t=42");
        assertThat(new HttpAnswer(inFlight).problemJson(refused))
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"",
                        "\"detail\":\"Policy 'exports' allows 3 requests in flight at once. Try again in 42 seconds.\"");
    }

    @Test
    void aRefusalByThePenaltyBoxIsAbnormalUsage() {
        HttpPolicy boxing = HttpPolicy.parser("init-param '%s'").defaultPolicyName("search", "the filter-name")
                .parse(Map.of("limit", "30", "window", "1m", "penalty", "15m"));
        for (boolean opens : new boolean[] {true, false}) {
            Decision boxed = DecisionAccess.get().penaltyDenial(boxing.rule(), 0, Duration.ofSeconds(900),
                    Duration.ofSeconds(60), opens);
            assertThat(headers(boxed, boxing)).as("t is the penalty left: Retry-After").containsExactly(
                    "Retry-After: 900", "RateLimit-Policy: \"search\";q=30;w=60", "RateLimit: \"search\";r=0;t=900");
            assertThat(new HttpAnswer(boxing).status(boxed)).isEqualTo(429);
            assertThat(new HttpAnswer(boxing).problemJson(boxed)).as(opens ? "the denial that boxes" : "in the box")
                    .isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#abnormal-usage-detected\","
                            + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Policy 'search' allows 30 "
                            + "requests per 1m and refuses a client that goes over it for 15m. Try again in 900 seconds.\","
                            + "\"violated-policies\":[\"search\"],\"retryAfter\":900,\"policy\":\"search\"}");
        }
        Decision overTheLimit = Decision.of(false, boxing.rule(), 0, Duration.ofSeconds(2), Duration.ofSeconds(60));
        assertThat(new HttpAnswer(boxing).problemJson(overTheLimit)).as("a denial the box had no part in")
                .startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\",");
    }

    @Test
    void legacyBothAndNone() {
        HttpPolicy legacy = policy("legacy");
        assertThat(headers(allowed(legacy), legacy))
                .containsExactly("X-RateLimit-Limit: 100", "X-RateLimit-Remaining: 42", "X-RateLimit-Reset: 17");
        HttpPolicy both = policy("both");
        assertThat(headers(allowed(both), both)).hasSize(5);
        HttpPolicy none = policy("none");
        assertThat(headers(allowed(none), none)).isEmpty();
        assertThat(headers(denied(none), none)).containsExactly("Retry-After: 3");
    }

    @Test
    void aDenialBodyIsProblemJson() {
        HttpPolicy draft = policy("draft");
        assertThat(new HttpAnswer(draft).status(denied(draft))).isEqualTo(429);
        assertThat(new HttpAnswer(draft).problemJson(denied(draft))).isEqualTo("{\"type\":"
                + "\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Policy 'api' allows 100 requests per 1m. "
                + "Try again in 3 seconds.\",\"violated-policies\":[\"api\"],\"retryAfter\":3,\"policy\":\"api\"}");
    }

    @Test
    void aDegradedDenialIs503WithoutQuotaHeaders() {
        HttpPolicy draft = policy("both");
        Decision degraded = Decision.degraded(false, draft.rule(), Duration.ofSeconds(1));
        assertThat(new HttpAnswer(draft).status(degraded)).isEqualTo(503);
        assertThat(headers(degraded, draft)).containsExactly("Retry-After: 1");
        assertThat(new HttpAnswer(draft).problemJson(degraded)).contains("\"title\":\"Service Unavailable\"",
                "\"status\":503", "cannot reach Redis",
                "\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\"")
                .doesNotContain("violated-policies");
        assertThat(draft.rule().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
    }

    @Test
    void aLocalDecisionCarriesTheNodesOwnQuotaAndItsDenialIsAnOrdinary429() {
        HttpPolicy both = policy("both");
        Rule local = Rule.of(Algorithm.SLIDING_LOG, 3, Duration.ofMinutes(1));
        Decision admitted = Decision.local(true, local, 2, Duration.ZERO, Duration.ofSeconds(60));
        Decision denied = Decision.local(false, local, 0, Duration.ofMillis(41_500), Duration.ofSeconds(59));

        assertThat(headers(admitted, both)).containsExactly("RateLimit-Policy: \"api\";q=3;w=60",
                "RateLimit: \"api\";r=2;t=60", "X-RateLimit-Limit: 3", "X-RateLimit-Remaining: 2",
                "X-RateLimit-Reset: 60");
        assertThat(headers(denied, both)).containsExactly("Retry-After: 42", "RateLimit-Policy: \"api\";q=3;w=60",
                "RateLimit: \"api\";r=0;t=42", "X-RateLimit-Limit: 3", "X-RateLimit-Remaining: 0",
                "X-RateLimit-Reset: 59");
        assertThat(new HttpAnswer(both).status(denied)).isEqualTo(429);
        assertThat(new HttpAnswer(both).problemJson(denied)).isEqualTo("{\"type\":"
                + "\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Policy 'api' allows 3 requests per 1m "
                + "on this server while the rate limiter cannot reach Redis. Try again in 42 seconds.\","
                + "\"violated-policies\":[\"api\"],\"retryAfter\":42,\"policy\":\"api\"}");
    }
}
