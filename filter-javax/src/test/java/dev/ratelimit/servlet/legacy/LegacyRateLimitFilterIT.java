package dev.ratelimit.servlet.legacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.legacy.LegacyContainer;
import dev.ratelimit.testing.legacy.LegacyWebApp;
import dev.ratelimit.testing.legacy.PingServlet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Protocol;

/**
 * The javax filter jar (the jakarta filter's sources, generated for javax.servlet and Java 8) in
 * the legacy containers it is for, embedded Tomcat 9 and Jetty 9.4, over real HTTP, configured by
 * init-params given as the strings a web.xml holds.
 */
class LegacyRateLimitFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FILTER = "dev.ratelimit.servlet.RateLimitFilter";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final AtomicInteger APPS = new AtomicInteger();
    private static LegacyContainer tomcat;
    private static LegacyContainer jetty;

    @BeforeAll
    static void start() {
        tomcat = LegacyContainer.tomcat9();
        jetty = LegacyContainer.jetty94();
    }

    @AfterAll
    static void stop() {
        tomcat.stop();
        jetty.stop();
    }

    static Stream<LegacyContainer> containers() {
        return Stream.of(tomcat, jetty);
    }

    private static Map<String, String> params(String... pairs) {
        Map<String, String> params = new HashMap<>();
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix());
        for (int i = 0; i < pairs.length; i += 2) {
            params.put(pairs[i], pairs[i + 1]);
        }
        return params;
    }

    /** A webapp whose every request goes through the filter to a {@link PingServlet}. */
    private static LegacyWebApp limited(String path, Map<String, String> initParams) {
        return LegacyWebApp.at(path).filter("limited", FILTER, initParams, "/*")
                .servlet("ping", PingServlet.class.getName(), Map.of(), "/*");
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void theLimitHoldsAndADenialIsTheSameAnswerAsOnJakarta(LegacyContainer container) throws Exception {
        String path = "/app" + APPS.incrementAndGet();
        String policy = "api" + APPS.get();
        URI app = container.deploy(limited(path, params("limit", "3", "window", "1m", "policyName", policy,
                "algorithm", "fixed-window")));

        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> allowed = get(app.resolve("orders"));
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"" + policy + "\";q=3;w=60");
            assertThat(allowed.headers().firstValue("RateLimit")).get().asString()
                    .startsWith("\"" + policy + "\";r=" + (3 - i));
        }
        HttpResponse<String> denied = get(app.resolve("orders"));
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).get().asString().matches("[1-9][0-9]*");
        assertThat(denied.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        assertThat(denied.body()).contains("\"status\":429", "\"policy\":\"" + policy + "\"");
        container.undeploy(path);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void aBadInitParamStopsTheWebapp(LegacyContainer container) throws Exception {
        String path = "/bad" + APPS.incrementAndGet();
        assertThatThrownBy(() -> container.deploy(limited(path, params("limit", "3", "window", "soon"))))
                .isInstanceOf(IllegalStateException.class);
        URI healthy = container.deploy(limited("/ok" + APPS.incrementAndGet(), params("limit", "5", "window", "1m")));
        assertThat(get(healthy.resolve(path + "/x")).statusCode()).as("the broken webapp serves nothing")
                .isNotEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void contextParamsAreWebappWideDefaults(LegacyContainer container) throws Exception {
        String path = "/ctx" + APPS.incrementAndGet();
        Map<String, String> context = Map.of("ratelimit.limit", "1", "ratelimit.window", "1m",
                "ratelimit.redisUri", redis.uri(), "ratelimit.keyPrefix", redis.keyPrefix());
        LegacyWebApp app = limited(path, Map.of("policyName", "ctx" + APPS.get()));
        context.forEach(app::contextParam);
        URI base = container.deploy(app);
        assertThat(get(base).statusCode()).isEqualTo(200);
        assertThat(get(base).statusCode()).isEqualTo(429);
        container.undeploy(path);
    }

    @Test
    void aTomcat9AndAJetty94SharingOneRedisAdmitExactlyTheLimitInTotal() throws Exception {
        String path = "/shared" + APPS.incrementAndGet();
        Map<String, String> params = params("limit", "40", "window", "1m", "key", "global", "policyName", "shared");
        URI onTomcat = tomcat.deploy(limited(path, params));
        URI onJetty = jetty.deploy(limited(path, params));
        List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            URI node = (i % 2 == 0 ? onTomcat : onJetty).resolve("work");
            answers.add(HTTP.sendAsync(HttpRequest.newBuilder(node).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.discarding()));
        }
        int admitted = 0;
        int denied = 0;
        for (CompletableFuture<HttpResponse<Void>> answer : answers) {
            int status = answer.get().statusCode();
            admitted += status == 200 ? 1 : 0;
            denied += status == 429 ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(40);
        assertThat(denied).isEqualTo(160);
        tomcat.undeploy(path);
        jetty.undeploy(path);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void undeployLeavesNoConnectionOfOurs(LegacyContainer container) throws Exception {
        long before = ourConnections();
        String path = "/gone" + APPS.incrementAndGet();
        URI app = container.deploy(limited(path, params("limit", "5", "window", "1m")));
        assertThat(get(app).statusCode()).isEqualTo(200);
        assertThat(ourConnections()).as("the webapp's pool is open").isGreaterThan(before);

        container.undeploy(path);

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (ourConnections() > before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ourConnections()).as("destroy() closed the pool").isEqualTo(before);
    }

    private static long ourConnections() {
        Object list = redis.client().sendCommand(Protocol.Command.CLIENT, "LIST");
        return new String((byte[]) list, StandardCharsets.UTF_8).lines()
                .filter(line -> line.contains(" name=ratelimit ")).count();
    }
}
