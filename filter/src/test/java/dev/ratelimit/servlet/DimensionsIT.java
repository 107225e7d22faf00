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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * README's three dimensions (global, per address, per API key) through Tomcat and Jetty: exact per
 * dimension, a denial by one takes nothing from the others, and the answer names the deciding entry.
 * The addresses come through a trusted proxy's X-Forwarded-For (the test's loopback is the proxy).
 */
class DimensionsIT {
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
        return containers.get(kind).deploy(AppDescriptor.builder("/dims" + apps.get())
                .filter("api", RateLimitFilter.class.getName(), params, "/*").build());
    }

    private static HttpResponse<String> request(URI app, String address, String apiKey) {
        return Http.get(app, "X-Forwarded-For", address, "X-Api-Key", apiKey);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void threeDimensionsEachExactAndADenialTakesNothingFromTheOthers(Kind kind) throws Exception {
        URI app = deploy(kind, ReadmeSnippets.initParams("web.xml several dimensions"));

        HttpResponse<String> first = request(app, "198.51.100.1", "k1");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).as("the entry with the fewest left")
                .hasValue("\"api/header:X-Api-Key\";q=2;w=60");
        assertThat(request(app, "198.51.100.1", "k1").statusCode()).isEqualTo(200);
        HttpResponse<String> keyDenied = request(app, "198.51.100.1", "k1");
        assertThat(keyDenied.statusCode()).as("k1's 2 are spent").isEqualTo(429);
        assertThat(keyDenied.body()).contains("\"violated-policies\":[\"api/header:X-Api-Key\"]");

        assertThat(request(app, "198.51.100.1", "k2").statusCode()).as("the address had 2 of 3: the denial took none")
                .isEqualTo(200);
        HttpResponse<String> addressDenied = request(app, "198.51.100.1", "k3");
        assertThat(addressDenied.statusCode()).isEqualTo(429);
        assertThat(addressDenied.headers().firstValue("RateLimit-Policy")).hasValue("\"api/ip\";q=3;w=60");

        assertThat(request(app, "198.51.100.2", "k4").statusCode()).isEqualTo(200);
        assertThat(request(app, "198.51.100.3", "k5").statusCode()).isEqualTo(200);
        assertThat(request(app, "198.51.100.4", "k6").statusCode()).as("global: the sixth").isEqualTo(200);
        HttpResponse<String> globalDenied = request(app, "198.51.100.5", "k7");
        assertThat(globalDenied.statusCode()).isEqualTo(429);
        assertThat(globalDenied.headers().firstValue("RateLimit-Policy")).hasValue("\"api/global\";q=6;w=60");
    }

    /**
     * Clients whose keys read alike once joined ("a + b" and "c", "a" and "b + c") are other buckets, and
     * a denial the node remembers for one never answers the other: a client cannot make another's requests
     * refused by choosing header values that join to theirs.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aDenialRememberedForOneClientNeverAnswersAnotherWhoseKeysJoinAlike(Kind kind) throws Exception {
        URI app = deploy(kind, Map.of("limits", "1 per 1m by header:X-Tenant; 1 per 1m by header:X-User"));

        assertThat(Http.get(app, "X-Tenant", "a + b", "X-User", "c").statusCode()).isEqualTo(200);
        assertThat(Http.get(app, "X-Tenant", "a + b", "X-User", "c").statusCode()).isEqualTo(429);
        assertThat(Http.get(app, "X-Tenant", "a + b", "X-User", "c").statusCode()).as("remembered").isEqualTo(429);

        assertThat(Http.get(app, "X-Tenant", "a", "X-User", "b + c").statusCode()).as("another tenant and user")
                .isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void limitsExcludeTheSingleLimitsWordsAndCheckEachEntry(Kind kind) {
        assertRefused(kind, Map.of("limits", "5 per 1m by ip", "limit", "5"),
                "init-param 'limits' and init-param 'limit' exclude each other");
        assertRefused(kind, Map.of("limits", "5 per 1m by ip; five per 1m by user"),
                "init-param 'limits' must be entries such as '100 per 1m by user' separated by ';', but "
                        + "'five per 1m by user' in '5 per 1m by ip; five per 1m by user' is not one");
        assertRefused(kind, Map.of("limits", "5 per soon by ip"),
                "init-param 'limits' must give each entry a window such as 1s, 1m, 1h or 1d, but 'soon'");
        assertRefused(kind, Map.of("limits", "5 per 1m by ip", "onRedisFailure", "local"),
                "init-param 'onRedisFailure' is 'local', which limits one client per request");
    }

    private static void assertRefused(Kind kind, Map<String, String> settings, String message) {
        assertThatThrownBy(() -> deploy(kind, settings)).isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining(message);
    }
}
