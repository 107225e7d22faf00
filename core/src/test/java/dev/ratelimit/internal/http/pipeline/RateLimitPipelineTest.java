package dev.ratelimit.internal.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.TestStores;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import dev.ratelimit.internal.http.checks.ConfigWarning;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decision flow every adapter shares, over an in-memory Redis: which requests are limited,
 * what a pass, a denial, a dry run and a degraded answer tell the adapter to write, and that
 * nothing reaches Redis for a request the policy does not limit.
 */
class RateLimitPipelineTest {
    private final InMemoryRedisGateway redis = new InMemoryRedisGateway();

    private RateLimitPipeline pipeline(String... pairs) {
        Map<String, String> settings = new HashMap<>(Map.of("algorithm", "fixed-window", "limit", "2",
                "window", "1m", "localDenyCache", "false"));
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] == null) {
                settings.remove(pairs[i]);
            } else {
                settings.put(pairs[i], pairs[i + 1]);
            }
        }
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(settings);
        return new RateLimitPipeline(policy, policy.limiters().newLimiter(TestStores.over(redis)), Map.of());
    }

    private static FakeRequest request(String method, String path) {
        FakeRequest request = new FakeRequest();
        request.method = method;
        request.path = path;
        return request;
    }

    private static List<String> headers(Admission admission) {
        List<String> written = new ArrayList<>();
        admission.writeHeaders(HttpAnswer.HeaderSink.of((name, value) -> written.add(name + ": " + value),
                (name, value) -> written.add(name + "= " + value)));
        return written;
    }

    @Test
    void aRequestThePolicyDoesNotCoverIsNotLimitedAndCostsNoRedisCall() {
        RateLimitPipeline pipeline = pipeline("methods", "POST", "excludePaths", "/health");

        Admission get = pipeline.before(request("GET", "/orders"));
        Admission health = pipeline.before(request("POST", "/health"));

        for (Admission admission : List.of(get, health)) {
            assertThat(admission.limited()).isFalse();
            assertThat(admission.denied()).isFalse();
            assertThat(admission.decision()).isNull();
            assertThat(headers(admission)).isEmpty();
            pipeline.after(admission, 200, null);
        }
        assertThat(redis.calls()).isZero();
    }

    @Test
    void anAllowedRequestPassesWithItsHeadersAndADeniedOneGetsTheProblemAnswer() {
        RateLimitPipeline pipeline = pipeline();

        Admission first = pipeline.before(request("GET", "/orders"));
        assertThat(first.limited()).isTrue();
        assertThat(first.denied()).isFalse();
        assertThat(headers(first)).containsExactly("RateLimit-Policy: \"api\";q=2;w=60", "RateLimit: \"api\";r=1;t=60");
        pipeline.after(first, 200, null);
        pipeline.before(request("GET", "/orders"));

        Admission third = pipeline.before(request("GET", "/orders"));
        assertThat(third.denied()).isTrue();
        assertThat(third.denialStatus()).isEqualTo(429);
        assertThat(third.denialContentType()).isEqualTo("application/problem+json");
        assertThat(third.denialBody()).contains("\"status\":429", "\"policy\":\"api\"", "\"retryAfter\":61");
        // Fixed-window's retry-after is the key's PTTL + 1 ms: 60.001 s, rounded up.
        assertThat(headers(third)).containsExactly("Retry-After= 61", "RateLimit-Policy: \"api\";q=2;w=60",
                "RateLimit: \"api\";r=0;t=61");
        assertThat(redis.calls()).isEqualTo(3);
    }

    @Test
    void aDryRunLetsTheDeniedRequestThroughWithTheDenialsHeaders() {
        RateLimitPipeline pipeline = pipeline("enforce", "false", "limit", "1");
        pipeline.before(request("GET", "/"));

        Admission wouldBeDenied = pipeline.before(request("GET", "/"));

        assertThat(wouldBeDenied.denied()).as("never blocks").isFalse();
        assertThat(wouldBeDenied.decision().allowed()).as("but counts as denied").isFalse();
        assertThat(headers(wouldBeDenied)).contains("Retry-After= 61", "RateLimit: \"api\";r=0;t=61");
        pipeline.after(wouldBeDenied, 200, null);
    }

    @Test
    void whenRedisFailsAllowLetsTheRequestThroughWithoutQuotaHeaders() {
        RateLimitPipeline pipeline = pipeline();
        redis.failAll();

        Admission admission = pipeline.before(request("GET", "/"));

        assertThat(admission.denied()).isFalse();
        assertThat(admission.decision().degraded()).isTrue();
        assertThat(headers(admission)).as("nothing true can be said about the quota").isEmpty();
    }

    @Test
    void whenRedisFailsDenyAnswers503WithRetryAfterOneSecond() {
        RateLimitPipeline pipeline = pipeline("onRedisFailure", "deny");
        redis.failAll();

        Admission admission = pipeline.before(request("GET", "/"));

        assertThat(admission.denied()).isTrue();
        assertThat(admission.denialStatus()).isEqualTo(503);
        assertThat(admission.denialBody()).contains("cannot reach Redis", "\"status\":503");
        assertThat(headers(admission)).containsExactly("Retry-After= 1");
    }

    @Test
    void onlyAdaptiveLimitsMeasureHowLongTheHandlerTook() {
        assertThat(pipeline().before(request("GET", "/")).timed()).isFalse();
        RateLimitPipeline adaptive = pipeline("adaptive", "50%");

        Admission admission = adaptive.before(request("GET", "/"));

        assertThat(admission.timed()).isTrue();
        adaptive.after(admission, 200, null);
    }

    @Test
    void aRequestDispatchedAgainThroughTheSamePipelineIsDecidedOnce() {
        RateLimitPipeline pipeline = pipeline();
        FakeRequest request = request("GET", "/orders");

        Admission first = pipeline.before(request);
        request.path = "/target"; // a forward, an include, an error page, an async dispatch
        Admission again = pipeline.before(request);

        assertThat(first.limited()).isTrue();
        assertThat(again.limited()).as("not counted twice").isFalse();
        assertThat(again.denied()).isFalse();
        assertThat(headers(again)).as("the first pass wrote them").isEmpty();
        pipeline.after(again, 200, null);
        assertThat(redis.calls()).isEqualTo(1);
        assertThat(pipeline.before(request("GET", "/orders")).decision().allowed()).as("another request counts").isTrue();
        assertThat(redis.calls()).isEqualTo(2);
    }

    @Test
    void eachPipelineDecidesTheRequestOnceAndAnUncoveredPassDoesNotCount() {
        RateLimitPipeline api = pipeline("excludePaths", "/public/*");
        RateLimitPipeline other = pipeline();
        FakeRequest request = request("GET", "/public/page");

        assertThat(api.before(request).limited()).as("not covered").isFalse();
        request.path = "/orders"; // forwarded to a covered path
        assertThat(api.before(request).limited()).as("decided here, once").isTrue();
        assertThat(api.before(request).limited()).isFalse();
        assertThat(other.before(request).limited()).as("another policy decides it too").isTrue();
        assertThat(other.before(request).limited()).isFalse();
    }

    /**
     * Only a request with none of its key's parts goes to the shared bucket, and only that is a
     * warning; a key of several words with one part absent is the client's own.
     */
    @Test
    void onlyARequestWithNoPartOfItsKeyIsCountedInTheSharedBucket() {
        RateLimitPipeline partial = pipeline("key", "ip+header:X-Api-Key", "limit", "1");
        assertThat(partial.before(request("GET", "/a").from("192.0.2.1")).denied()).isFalse();
        assertThat(partial.before(request("GET", "/a").from("192.0.2.2")).denied()).as("another address, its own")
                .isFalse();
        assertThat(partial.checks().warnings()).isEmpty();

        RateLimitPipeline keyless = pipeline("key", "header:X-Api-Key", "limit", "1");
        keyless.before(request("GET", "/a").from("192.0.2.1"));
        assertThat(keyless.before(request("GET", "/a").from("192.0.2.2")).denied()).as("one bucket for both").isTrue();
        assertThat(keyless.before(request("GET", "/a").header("X-Api-Key", "k")).denied()).isFalse();
        assertThat(keyless.checks().warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.code()).isEqualTo("SHARED_BUCKET");
            assertThat(warning.requests()).isEqualTo(2);
        });
    }

    @Test
    void aLimitsEntryWithoutItsKeyIsCountedInTheSharedBucketToo() {
        RateLimitPipeline pipeline = pipeline("limit", null, "window", null, "limits",
                "100 per 1m by ip; 10 per 1m by header:X-Api-Key");
        pipeline.before(request("GET", "/a"));
        assertThat(pipeline.checks().warnings()).singleElement().satisfies(
                warning -> assertThat(warning.text()).contains("key 'header:X-Api-Key'"));
    }

    @Test
    void aProxyThatIsNotTrustedIsNamedByThePolicyWhoseKeyIsTheAddressAlone() {
        RateLimitPipeline byAddress = pipeline();
        RateLimitPipeline trusting = pipeline("trustedProxies", "127.0.0.1");
        RateLimitPipeline byUser = pipeline("key", "user");

        for (int i = 0; i < 60; i++) {
            for (RateLimitPipeline pipeline : List.of(byAddress, trusting, byUser)) {
                FakeRequest request = request("GET", "/orders").from("127.0.0.1")
                        .header("X-Forwarded-For", "198.51.100." + (i % 50 + 1));
                request.userName = "user" + i % 50;
                pipeline.before(request);
            }
        }

        assertThat(byAddress.checks().warnings()).extracting(ConfigWarning::code).containsExactly("UNTRUSTED_PROXY");
        assertThat(trusting.checks().warnings()).isEmpty();
        assertThat(byUser.checks().warnings()).isEmpty();
    }
}
