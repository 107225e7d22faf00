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
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tiers by role, by request attribute and by header, and exemptions by address and role, through
 * Tomcat and Jetty: README's snippet deployed as written (only Redis and the trusted proxy, this
 * test's loopback, are the test's), behind the webapp's own authentication filter.
 */
class TiersAndExemptionsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI deploy(Kind kind, Map<String, String> settings) throws Exception {
        Map<String, String> params = new LinkedHashMap<>(settings);
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix() + kind + apps.incrementAndGet() + ":");
        params.put("trustedProxies", "127.0.0.1, ::1");
        return containers.get(kind).deploy(AppDescriptor.builder("/tiers" + apps.get())
                .filter("auth", HeaderAuthenticationFilter.class.getName(), Map.of(), "/*")
                .filter("api", RateLimitFilter.class.getName(), params, "/*").build());
    }

    /** The statuses of n requests with these headers, and the last answer's RateLimit-Policy. */
    private static List<Integer> statuses(URI app, int n, String... headers) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            statuses.add(send(app, headers).statusCode());
        }
        return statuses;
    }

    private static HttpResponse<String> send(URI app, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(app);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return Http.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<Integer> admitted(int admitted, int tries) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < tries; i++) {
            statuses.add(i < admitted ? 200 : 429);
        }
        return statuses;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void tiersByRoleTheFirstListedTierWinsAndHeadersShowItsQuota(Kind kind) throws Exception {
        URI app = deploy(kind, ReadmeSnippets.initParams("web.xml tiers and exemptions"));

        assertThat(statuses(app, 4, "X-Test-User", "alice")).as("no tier: limit 2").isEqualTo(admitted(2, 4));
        assertThat(statuses(app, 6, "X-Test-User", "bob", "X-Test-Roles", "partner"))
                .isEqualTo(admitted(4, 6));
        assertThat(statuses(app, 8, "X-Test-User", "dave", "X-Test-Roles", "staff")).isEqualTo(admitted(6, 8));
        assertThat(statuses(app, 6, "X-Test-User", "carol", "X-Test-Roles", "staff,partner"))
                .as("partner is listed first").isEqualTo(admitted(4, 6));
        assertThat(send(app, "X-Test-User", "erin", "X-Test-Roles", "staff").headers().firstValue("RateLimit-Policy"))
                .hasValue("\"api\";q=6;w=60");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void exemptRolesAndAddressesAreNeitherLimitedNorCountedNorGivenHeaders(Kind kind) throws Exception {
        URI app = deploy(kind, ReadmeSnippets.initParams("web.xml tiers and exemptions"));

        for (int i = 0; i < 10; i++) {
            HttpResponse<String> admin = send(app, "X-Test-User", "root", "X-Test-Roles", "admin");
            assertThat(admin.statusCode()).isEqualTo(200);
            assertThat(admin.headers().firstValue("RateLimit")).isEmpty();
            HttpResponse<String> probe = send(app, "X-Forwarded-For", "192.0.2.17");
            assertThat(probe.statusCode()).as("the load balancer's health check").isEqualTo(200);
            assertThat(probe.headers().firstValue("RateLimit")).isEmpty();
        }
        assertThat(statuses(app, 3, "X-Test-User", "root")).as("root without the role is limited")
                .isEqualTo(admitted(2, 3));
        assertThat(statuses(app, 3, "X-Forwarded-For", "198.51.100.17"))
                .as("another address, anonymous: the shared bucket").isEqualTo(admitted(2, 3));
        assertThat(statuses(app, 1, "X-Forwarded-For", "192.0.2.17, 198.51.100.17"))
                .as("an exempt address on the left is forged by the client, not vouched for").isEqualTo(List.of(429));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void tiersByAttributeAndByHeader(Kind kind) throws Exception {
        URI byAttribute = deploy(kind, Map.of("limit", "1", "window", "1m", "key", "user", "tiers", "gold:3",
                "tierFrom", "attribute:plan"));
        assertThat(statuses(byAttribute, 4, "X-Test-User", "ann", "X-Test-Plan", "gold")).isEqualTo(admitted(3, 4));
        assertThat(statuses(byAttribute, 2, "X-Test-User", "ben", "X-Test-Plan", "silver"))
                .as("no such tier: limit").isEqualTo(admitted(1, 2));

        URI byHeader = deploy(kind, Map.of("limit", "1", "window", "1m", "key", "user", "tiers", "gold:3",
                "tierFrom", "header:X-Plan"));
        assertThat(statuses(byHeader, 4, "X-Test-User", "cid", "X-Plan", "gold")).isEqualTo(admitted(3, 4));
        assertThat(statuses(byHeader, 2, "X-Test-User", "dan")).isEqualTo(admitted(1, 2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void badTiersAndExemptionsStopTheWebappNamingTheSetting(Kind kind) {
        assertRefused(kind, Map.of("tiers", "partner:10"),
                "init-param 'tiers' needs init-param 'tierFrom', which is not set (tiers was 'partner:10')");
        assertRefused(kind, Map.of("tiers", "partner=10", "tierFrom", "role"),
                "init-param 'tiers' must list name:limit pairs such as partner:1000, staff:5000");
        assertRefused(kind, Map.of("tiers", "partner:10", "tierFrom", "cookie:plan"),
                "init-param 'tierFrom' must be role, attribute:NAME or header:NAME, but was 'cookie:plan'");
        assertRefused(kind, Map.of("exemptAddresses", "10.0.0.0/33"),
                "init-param 'exemptAddresses' must list CIDR blocks such as 10.0.0.0/8 or 2001:db8::/32 separated "
                        + "by commas, but '10.0.0.0/33' in '10.0.0.0/33' is not one");
    }

    private static void assertRefused(Kind kind, Map<String, String> settings, String message) {
        Map<String, String> params = new LinkedHashMap<>(settings);
        params.put("limit", "3");
        params.put("window", "1m");
        assertThatThrownBy(() -> deploy(kind, params)).isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining(message);
    }
}
