package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/migration.md's rows for Tomcat's {@code policyName} and {@code exposeHeaders}, against
 * Tomcat's own RateLimitFilter (of the Tomcat on the test class path: 11, or 9 in the javax build)
 * in the same container: with the same name and limit, this filter's {@code RateLimit-Policy} is
 * Tomcat's, and its {@code RateLimit} adds {@code t=}; Tomcat's dry run sends the policy alone,
 * this one both.
 */
class TomcatFilterHeadersIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final String TOMCATS = "org.apache.catalina.filters.RateLimitFilter";

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** The headers of the first answer of a new app whose one filter is {@code filterClass}. */
    private static HttpHeaders first(Kind kind, String path, String filterClass, Map<String, String> params) throws Exception {
        if (filterClass.equals(RateLimitFilter.class.getName())) {
            // Each app its own keys: every policy here is named api.
            params.put("keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        }
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path).filter("limit", filterClass, params, "/*").build());
        return Http.get(app).headers();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theSameNameAndLimitGiveTomcatsHeadersAndTheReset(Kind kind) throws Exception {
        HttpHeaders tomcats = first(kind, "/tomcats-" + kind, TOMCATS, Map.of("bucketRequests", "3", "bucketDuration",
                "60", "rateLimitClassName", "org.apache.catalina.util.ExactRateLimiter", "policyName", "api",
                "exposeHeaders", "true"));
        HttpHeaders ours = first(kind, "/ours-" + kind, RateLimitFilter.class.getName(),
                FilterParams.of(redis, "limit", "3", "window", "60s", "policyName", "api"));

        assertThat(tomcats.firstValue("RateLimit-Policy")).hasValue("\"api\";q=3;w=60");
        assertThat(ours.firstValue("RateLimit-Policy")).isEqualTo(tomcats.firstValue("RateLimit-Policy"));
        assertThat(tomcats.firstValue("RateLimit")).hasValue("\"api\";r=2");
        assertThat(ours.firstValue("RateLimit")).hasValue("\"api\";r=2;t=60");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aDryRunSendsBothHeadersWhereTomcatsSendsThePolicyAlone(Kind kind) throws Exception {
        HttpHeaders tomcats = first(kind, "/tomcats-dry-" + kind, TOMCATS, Map.of("bucketRequests", "3",
                "policyName", "api", "exposeHeaders", "true", "enforce", "false"));
        HttpHeaders ours = first(kind, "/ours-dry-" + kind, RateLimitFilter.class.getName(),
                FilterParams.of(redis, "limit", "3", "window", "60s", "policyName", "api", "enforce", "false"));

        assertThat(tomcats.firstValue("RateLimit-Policy")).isPresent();
        assertThat(tomcats.firstValue("RateLimit")).isEmpty();
        assertThat(ours.firstValue("RateLimit-Policy")).isPresent();
        assertThat(ours.firstValue("RateLimit")).hasValue("\"api\";r=2;t=60");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withoutExposeHeadersTomcatsSendsNoneAsHeadersNoneDoes(Kind kind) throws Exception {
        HttpHeaders tomcats = first(kind, "/tomcats-none-" + kind, TOMCATS, Map.of("bucketRequests", "3"));
        HttpHeaders ours = first(kind, "/ours-none-" + kind, RateLimitFilter.class.getName(),
                FilterParams.of(redis, "limit", "3", "window", "60s", "headers", "none"));

        assertThat(tomcats.map().keySet()).noneMatch(name -> name.toLowerCase().startsWith("ratelimit"));
        assertThat(ours.map().keySet()).noneMatch(name -> name.toLowerCase().startsWith("ratelimit"));
    }
}
