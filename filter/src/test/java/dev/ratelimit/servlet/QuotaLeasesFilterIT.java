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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code leases=true} through RateLimitFilter, as web.xml strings, on Tomcat and Jetty sharing one
 * Redis: a busy client is admitted mostly without a round trip, never over the limit, every answer
 * with its rate-limit headers; when the webapps stop they give back what they did not use, and the
 * client then gets exactly the rest of its limit. A policy where leases cannot be exact does not
 * deploy.
 */
class QuotaLeasesFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static String deploy(Kind kind, Map<String, String> params) throws DeploymentFailedException {
        String path = "/leases" + apps.incrementAndGet();
        containers.get(kind).deploy(AppDescriptor.builder(path).filter("api", RateLimitFilter.class.getName(), params, "/*")
                .build());
        return path;
    }

    private static URI uri(Kind kind, String path) {
        return containers.get(kind).uri(path);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fixed-window", "sliding-log", "token-bucket", "gcra"})
    void aBusyClientOnTwoServersIsAdmittedMostlyFromLeasesAndNeverOverItsLimit(String algorithm) throws Exception {
        String policy = "leased-" + algorithm;
        Map<String, String> params = FilterParams.of(redis, "policyName", policy, "algorithm", algorithm,
                "limit", "40", "window", "1h", "key", "header:X-Client", "headers", "both", "leases", "true");
        String onTomcat = deploy(Kind.TOMCAT, params);
        String onJetty = deploy(Kind.JETTY, params);
        long callsBefore = redis.calls("evalsha", "eval");

        int admitted = 0;
        long callsAdmitting = -1;
        for (int i = 0; i < 100; i++) {
            HttpResponse<String> answer = i % 2 == 0 ? Http.get(uri(Kind.TOMCAT, onTomcat), "X-Client", "busy")
                    : Http.get(uri(Kind.JETTY, onJetty), "X-Client", "busy");
            assertThat(answer.statusCode()).as("answer %d", i).isIn(200, 429);
            assertThat(answer.headers().firstValue("X-RateLimit-Limit")).hasValue("40");
            long remaining = Long.parseLong(answer.headers().firstValue("X-RateLimit-Remaining").orElseThrow());
            assertThat(remaining).isBetween(0L, 39L);
            admitted += answer.statusCode() == 200 ? 1 : 0;
            if (answer.statusCode() == 429 && callsAdmitting < 0) {
                callsAdmitting = redis.calls("evalsha", "eval") - callsBefore;
            }
        }

        assertThat(admitted).as("never over the limit").isLessThanOrEqualTo(40);
        // Until the first denial; after it each denial is Redis's (with leases no node remembers denials).
        assertThat(callsAdmitting).as("script calls until the first 429: fewer than its 40 admissions alone would make")
                .isBetween(1L, 39L);

        containers.get(Kind.TOMCAT).undeploy(onTomcat);
        containers.get(Kind.JETTY).undeploy(onJetty);
        params.put("leases", "false");
        String plain = deploy(Kind.TOMCAT, params);
        int rest = 0;
        while (Http.get(uri(Kind.TOMCAT, plain), "X-Client", "busy").statusCode() == 200) {
            rest++;
        }
        assertThat(admitted + rest).as("with leases (%d), then one by one once they were given back", admitted)
                .isEqualTo(40);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void leasesWhereTheyCannotBeExactStopTheWebappNamingTheInitParam(Kind kind) {
        Map<String, String> params = FilterParams.of(redis, "algorithm", "leaky-bucket", "limit", "10", "window", "1m",
                "leases", "true");

        assertThatThrownBy(() -> deploy(kind, params)).isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("init-param 'leases' must be false unless there is one fixed-window, "
                        + "sliding-log, token-bucket or gcra rule over transport lua and no adaptive limits");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aLeasesValueThatIsNotABooleanStopsTheWebapp(Kind kind) {
        Map<String, String> params = FilterParams.of(redis, "limit", "10", "window", "1m", "leases", "yes");

        assertThatThrownBy(() -> deploy(kind, params)).isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("init-param 'leases' must be true or false, but was 'yes'");
    }

    /**
     * A client key of 4 KB (containers refuse headers near 8 KB themselves) leases like any other:
     * the lease table keys by the Redis key, which is bounded (the key's digest), and the client is
     * limited, never answered with a 500.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aHugeClientKeyIsLimitedWithLeasesAsAnyOther(Kind kind) throws Exception {
        String path = deploy(kind, FilterParams.of(redis, "policyName", "huge-" + kind, "limit", "5", "window", "1h",
                "key", "header:X-Client", "leases", "true"));
        String huge = "x".repeat(4 * 1024);

        int admitted = 0;
        for (int i = 0; i < 12; i++) {
            int status = Http.get(uri(kind, path), "X-Client", huge).statusCode();
            assertThat(status).isIn(200, 429);
            admitted += status == 200 ? 1 : 0;
        }
        assertThat(admitted).isLessThanOrEqualTo(5).isPositive();
    }
}
