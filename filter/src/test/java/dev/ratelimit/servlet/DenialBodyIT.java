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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code denialBody} and {@code denialContentType}: a webapp file as the denial's body, its
 * placeholders filled and escaped for its media type, read once at startup. On Tomcat and Jetty.
 */
class DenialBodyIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    /** A policy name users could write, holding every character that markup or JSON must escape. */
    private static final String HOSTILE_NAME = "a<b>&\"c'";

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI deploy(Kind kind, String resourcePath, String content, String... pairs)
            throws DeploymentFailedException {
        // Each app its own filter-name, hence policy and Redis keys: the tests share one client address.
        int n = apps.incrementAndGet();
        AppDescriptor.Builder app = AppDescriptor.builder("/denial" + n)
                .filter("api" + n, RateLimitFilter.class.getName(), FilterParams.of(redis, pairs), "/*");
        if (content != null) {
            app.resource(resourcePath, content);
        }
        return containers.get(kind).deploy(app.build());
    }

    /** Uses up the one permit, then answers the denial. */
    private static HttpResponse<String> denied(URI app) {
        assertThat(Http.get(app.resolve("x")).statusCode()).isEqualTo(200);
        return Http.get(app.resolve("x"));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anHtmlBodyHasItsPlaceholdersFilledAndEscaped(Kind kind) throws Exception {
        URI app = deploy(kind, "/WEB-INF/ratelimit/denied.html",
                "<html><style>p { color: red }</style><p title=\"{policy}\">{policy}: {limit} per {window}, "
                        + "again in {retryAfter} s ({status}) {unknown}</p></html>",
                "limit", "1", "window", "1m", "policyName", HOSTILE_NAME + 1 + kind, "denialBody",
                "/WEB-INF/ratelimit/denied.html");

        HttpResponse<String> denied = denied(app);

        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Content-Type")).get().asString().startsWith("text/html");
        String retryAfter = denied.headers().firstValue("Retry-After").orElseThrow();
        assertThat(Long.parseLong(retryAfter)).isBetween(1L, 60L);
        String escaped = "a&lt;b&gt;&amp;&quot;c&#39;1" + kind;
        assertThat(denied.body()).isEqualTo("<html><style>p { color: red }</style><p title=\"" + escaped + "\">"
                + escaped + ": 1 per 1m, again in " + retryAfter + " s (429) {unknown}</p></html>");
        assertThat(denied.headers().firstValue("RateLimit")).isPresent();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aJsonBodyIsEscapedAsJsonWithTheConfiguredContentTypeAndStatus(Kind kind) throws Exception {
        URI app = deploy(kind, "/WEB-INF/denied.tpl",
                "{\"error\":\"slow down\",\"policy\":\"{policy}\",\"retry\":{retryAfter},\"status\":{status}}",
                "limit", "1", "window", "10s", "policyName", HOSTILE_NAME + 2 + kind, "statusCode", "503",
                "denialBody", "/WEB-INF/denied.tpl", "denialContentType", "application/vnd.acme+json");

        HttpResponse<String> denied = denied(app);

        assertThat(denied.statusCode()).isEqualTo(503);
        assertThat(denied.headers().firstValue("Content-Type")).get().asString()
                .startsWith("application/vnd.acme+json");
        String retryAfter = denied.headers().firstValue("Retry-After").orElseThrow();
        assertThat(denied.body()).isEqualTo("{\"error\":\"slow down\",\"policy\":\"a<b>&\\\"c'2" + kind + "\",\"retry\":"
                + retryAfter + ",\"status\":503}");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void withoutDenialBodyTheProblemJsonStays(Kind kind) throws Exception {
        HttpResponse<String> denied = denied(deploy(kind, null, null, "limit", "1", "window", "1m"));

        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Content-Type")).get().asString()
                .startsWith("application/problem+json");
        assertThat(denied.body()).contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMissingFileFailsTheDeploymentNamingThePath(Kind kind) {
        assertThatThrownBy(() -> deploy(kind, null, null, "limit", "1", "window", "1m",
                "denialBody", "/WEB-INF/ratelimit/nowhere.html"))
                .isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("init-param 'denialBody' names '/WEB-INF/ratelimit/nowhere.html', which is not "
                        + "in the webapp");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aNameWithoutAKnownExtensionNeedsDenialContentType(Kind kind) {
        assertThatThrownBy(() -> deploy(kind, "/WEB-INF/denied.tpl", "x", "limit", "1", "window", "1m",
                "denialBody", "/WEB-INF/denied.tpl"))
                .isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("init-param 'denialContentType' is required when init-param 'denialBody' "
                        + "('/WEB-INF/denied.tpl') does not end in .html");
    }
}
