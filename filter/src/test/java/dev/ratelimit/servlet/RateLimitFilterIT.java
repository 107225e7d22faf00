package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RateLimitFilter in real containers over real HTTP, configured with init-param strings exactly as
 * a web.xml gives them. Every test runs on Tomcat and on Jetty.
 */
class RateLimitFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String FILTER = RateLimitFilter.class.getName();

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** Init-params with this class's Redis and key prefix, plus the given name, value pairs. */
    private static Map<String, String> params(String... pairs) {
        return FilterParams.of(redis, pairs);
    }

    /** Deploys an app whose only filter is a RateLimitFilter named "api" on /*; returns its base URI. */
    private static URI deploy(Kind kind, Map<String, String> params) throws DeploymentFailedException {
        String path = "/app" + apps.incrementAndGet();
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("api" + apps.get(), FILTER, params, "/*").build());
    }

    private static URI deploy(Kind kind, String... pairs) throws DeploymentFailedException {
        return deploy(kind, params(pairs));
    }

    private static String policyOf(URI app) {
        return "api" + app.getPath().replaceAll("\\D", "");
    }

    static Stream<Arguments> kindsAndHeaderModes() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (String mode : List.of("draft", "legacy", "both", "none")) {
                cases.add(Arguments.of(kind, mode));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, headers={1}")
    @MethodSource("kindsAndHeaderModes")
    void allowedAndDeniedAnswersCarryTheHeadersOfTheirMode(Kind kind, String mode) throws Exception {
        URI app = deploy(kind, "limit", "2", "window", "1m", "headers", mode);
        String policy = policyOf(app);

        HttpResponse<String> first = Http.get(app.resolve("orders"));
        Http.get(app.resolve("orders"));
        HttpResponse<String> denied = Http.get(app.resolve("orders"));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("GET " + app.getPath() + "orders");
        assertThat(first.headers().firstValue("Retry-After")).isEmpty();
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("X-Echo")).as("the chain was not called").isEmpty();
        assertThat(denied.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(59L, 60L));
        assertThat(denied.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(denied.body())
                .startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                        + "\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Policy '" + policy + "' allows 2 requests per 1m. Try again in ")
                .contains("\"violated-policies\":[\"" + policy + "\"],\"retryAfter\":")
                .endsWith(",\"policy\":\"" + policy + "\"}");

        boolean draft = mode.equals("draft") || mode.equals("both");
        boolean legacy = mode.equals("legacy") || mode.equals("both");
        if (draft) {
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"" + policy + "\";q=2;w=60");
            assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).matches("\"" + policy + "\";r=1;t=(59|60)"));
            String retryAfter = denied.headers().firstValue("Retry-After").orElseThrow();
            assertThat(denied.headers().firstValue("RateLimit")).as("on a denial t is the Retry-After value")
                    .hasValue("\"" + policy + "\";r=0;t=" + retryAfter);
        } else {
            assertThat(first.headers().firstValue("RateLimit")).isEmpty();
            assertThat(first.headers().firstValue("RateLimit-Policy")).isEmpty();
        }
        if (legacy) {
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
            assertThat(denied.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(denied.headers().firstValue("X-RateLimit-Reset")).hasValueSatisfying(
                    value -> assertThat(Long.parseLong(value)).isBetween(59L, 60L));
        } else {
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        }
    }

    static Stream<Arguments> badConfigurations() {
        String[][] cases = {
            {"limit", "abc", "init-param 'limit' must be a whole number of at least 1, such as 100, but was 'abc'"},
            {"window", "-1s", "init-param 'window' must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M, but was '-1s'"},
            {"limt", "100", "unknown init-param 'limt' (a typo?)"},
            {"key", "header:", "init-param 'key' must be ip, user, session, global, header:NAME, param:NAME or cookie:NAME, joined with '+', but was 'header:' ('header:' names no header)"},
            {"trustedProxies", "10.0.0.0/99", "init-param 'trustedProxies' must list CIDR blocks such as 10.0.0.0/8 or 2001:db8::/32 separated by commas, but '10.0.0.0/99' in '10.0.0.0/99' is not one"},
            {"forwardedHeader", "X-Real-IP", "init-param 'forwardedHeader' must be X-Forwarded-For or Forwarded, but was 'X-Real-IP'"},
            {"ipv6Prefix", "0", "init-param 'ipv6Prefix' must be a whole number between 1 and 128, but was '0'"},
            {"algorithm", "fast", "init-param 'algorithm' must be one of fixed-window, sliding-log, sliding-window, token-bucket, leaky-bucket, gcra, concurrency, but was 'fast'"},
            {"keyResolverClass", "com.example.Missing", "init-param 'keyResolverClass' must name a public class implementing dev.ratelimit.http.KeyResolver with a public no-argument constructor, but was 'com.example.Missing' (no such class is visible to the webapp)"},
        };
        List<Arguments> arguments = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (String[] bad : cases) {
                arguments.add(Arguments.of(kind, bad[0], bad[1], bad[2]));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0}: {1}={2}")
    @MethodSource("badConfigurations")
    void aBadInitParamStopsTheWebappWithTheParameterAndValueNamed(Kind kind, String name, String value,
            String message) throws Exception {
        URI healthy = deploy(kind, "limit", "5", "window", "1m");
        Map<String, String> params = params("limit", "100", "window", "1m");
        params.put(name, value);

        assertThatThrownBy(() -> deploy(kind, params))
                .isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("is misconfigured: " + message);

        String failedPath = "/app" + apps.get() + "/";
        assertThat(Http.get(healthy.resolve(failedPath)).statusCode()).as("the broken webapp serves nothing")
                .isNotEqualTo(200);
        assertThat(Http.get(healthy.resolve("ping")).statusCode()).as("the other webapp still serves").isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aBadContextParamDefaultStopsTheWebappToo(Kind kind) {
        String path = "/app" + apps.incrementAndGet();
        AppDescriptor app = AppDescriptor.builder(path).contextParam("ratelimit.window", "soon")
                .filter("api", FILTER, params("limit", "5"), "/*").build();
        assertThatThrownBy(() -> containers.get(kind).deploy(app))
                .hasMessageContaining("context-param 'ratelimit.window' must be a duration such as 500ms, 10s, 1m, "
                        + "1h, 1d or PT1M, but was 'soon'");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void contextParamsAreWebappWideDefaults(Kind kind) throws Exception {
        String path = "/app" + apps.incrementAndGet();
        Map<String, String> params = params();
        params.remove("redisUri");
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path)
                .contextParam("ratelimit.redisUri", redis.uri())
                .contextParam("ratelimit.limit", "1")
                .contextParam("ratelimit.window", "1m")
                .filter("api" + apps.get(), FILTER, params, "/*").build());
        assertThat(Http.get(app.resolve("x")).statusCode()).isEqualTo(200);
        assertThat(Http.get(app.resolve("x")).statusCode()).isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withoutTrustedProxiesAForgedForwardedForChangesNothing(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "2", "window", "1m");
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.3").statusCode())
                .as("every request is 127.0.0.1, whatever it claims").isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void behindATrustedProxyEachForwardedClientHasItsOwnLimit(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "1", "window", "1m", "trustedProxies", "127.0.0.0/8, ::1/128");
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(429);
        assertThat(Http.get(app, "X-Forwarded-For", "6.6.6.6, 198.51.100.2").statusCode())
                .as("a forged left-most entry does not make a new client").isEqualTo(429);
        assertThat(Http.get(app, "Forwarded", "for=198.51.100.3").statusCode())
                .as("the proxies write X-Forwarded-For (forwardedHeader): Forwarded leaves the peer's own bucket")
                .isEqualTo(200);
        assertThat(Http.get(app, "Forwarded", "for=198.51.100.4").statusCode()).isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aDryRunCountsAndSendsHeadersButNeverBlocks(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "1", "window", "1m", "enforce", "false", "headers", "legacy");
        Http.get(app);
        HttpResponse<String> overLimit = Http.get(app);
        assertThat(overLimit.statusCode()).isEqualTo(200);
        assertThat(overLimit.headers().firstValue("X-Echo")).hasValue("1");
        assertThat(overLimit.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(overLimit.headers().firstValue("Retry-After")).isPresent();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void onlyTheListedMethodsAreLimited(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "1", "window", "1m", "methods", "POST,PUT");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> get = Http.get(app);
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.headers().firstValue("RateLimit")).as("an unlimited request gets no headers").isEmpty();
        }
        assertThat(Http.send("POST", app).statusCode()).isEqualTo(200);
        assertThat(Http.send("PUT", app).statusCode()).isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void limitingGetLimitsHeadToo(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "2", "window", "1m", "methods", "GET");
        assertThat(Http.send("HEAD", app).statusCode()).isEqualTo(200);
        assertThat(Http.get(app).statusCode()).isEqualTo(200);
        assertThat(Http.send("HEAD", app).statusCode()).as("HEAD runs the GET handler: it counts").isEqualTo(429);
        assertThat(Http.get(app).statusCode()).isEqualTo(429);
        assertThat(Http.send("POST", app).statusCode()).as("not listed").isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void excludedPathsAreNeverLimited(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "1", "window", "1m", "excludePaths", "/health, /static/*");
        for (int i = 0; i < 3; i++) {
            assertThat(Http.get(app.resolve("health")).statusCode()).isEqualTo(200);
            HttpResponse<String> asset = Http.get(app.resolve("static/app.js"));
            assertThat(asset.statusCode()).isEqualTo(200);
            assertThat(asset.headers().firstValue("RateLimit")).isEmpty();
        }
        assertThat(Http.get(app.resolve("api/orders")).statusCode()).isEqualTo(200);
        assertThat(Http.get(app.resolve("health/deep")).statusCode()).as("exact paths are exact").isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void eachRequestTakesItsCost(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "10", "window", "1m", "cost", "3", "headers", "legacy");
        assertThat(Http.get(app).headers().firstValue("X-RateLimit-Remaining")).hasValue("7");
        assertThat(Http.get(app).headers().firstValue("X-RateLimit-Remaining")).hasValue("4");
        assertThat(Http.get(app).headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        assertThat(Http.get(app).statusCode()).isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aCustomKeyResolverClassDecidesTheClient(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "1", "window", "1m", "keyResolverClass", TenantKeyResolver.class.getName());
        assertThat(Http.get(app, "X-Tenant", "acme").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Tenant", "globex").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Tenant", "acme").statusCode()).isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void requestsWithoutAKeyShareOneMissingBucket(Kind kind) throws Exception {
        URI app = deploy(kind, "limit", "2", "window", "1m", "key", "header:X-Api-Key");
        assertThat(Http.get(app, "X-Api-Key", "k1").statusCode()).isEqualTo(200);
        assertThat(Http.get(app).statusCode()).isEqualTo(200);
        assertThat(Http.get(app).statusCode()).isEqualTo(200);
        assertThat(Http.get(app).statusCode()).as("keyless requests share one bucket").isEqualTo(429);
        assertThat(Http.get(app, "X-Api-Key", "k1").statusCode()).as("keyed clients are apart").isEqualTo(200);
    }
}
