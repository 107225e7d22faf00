package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code onRedisFailure=local} through RateLimitFilter on Tomcat and Jetty, with init-params as
 * web.xml strings: while Redis cannot be reached each webapp admits exactly {@code localLimit} and
 * denies the rest with an ordinary 429 and rate-limit headers (never a 500 or 503); once Redis is
 * back it alone decides; a bad {@code localLimit}, or one without {@code onRedisFailure=local},
 * stops the webapp naming it and its value.
 */
class RateLimitFilterLocalFallbackIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    @AfterEach
    void redisIsBack() {
        if (!redis.isAnswering()) {
            redis.start();
        }
    }

    /** A port nobody listens on: connections to it are refused at once. */
    private static int deadPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static URI deploy(Kind kind, Map<String, String> params) throws DeploymentFailedException {
        String path = "/local" + apps.incrementAndGet();
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("api" + apps.get(),
                RateLimitFilter.class.getName(), params, "/*").build());
    }

    private static Map<String, String> params(String... pairs) {
        Map<String, String> params = FilterParams.of(redis, "limit", "10", "window", "1m", "key", "header:X-Client",
                "redisTimeout", "300ms", "onRedisFailure", "local", "localLimit", "3", "headers", "both");
        for (int i = 0; i < pairs.length; i += 2) {
            params.put(pairs[i], pairs[i + 1]);
        }
        return params;
    }

    /** Sends the requests at once, all as one client; the answers in the order sent. */
    private static List<HttpResponse<String>> fire(URI app, int count, String client) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpRequest request = HttpRequest.newBuilder(app).header("X-Client", client)
                    .timeout(Duration.ofSeconds(20)).build();
            answers.add(Http.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> done = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            done.add(answer.get(30, TimeUnit.SECONDS));
        }
        return done;
    }

    private static String policyOf(URI app) {
        return "api" + app.getPath().replaceAll("\\D", "");
    }

    private static void assertLocallyLimited(URI app, String client, int sent) throws Exception {
        String policy = policyOf(app);
        List<HttpResponse<String>> answers = fire(app, sent, client);

        assertThat(answers).extracting(HttpResponse::statusCode).as("never a 500 or 503").containsOnly(200, 429);
        assertThat(answers).filteredOn(answer -> answer.statusCode() == 200).hasSize(3);
        for (HttpResponse<String> answer : answers) {
            assertThat(answer.headers().firstValue("RateLimit-Policy")).hasValue("\"" + policy + "\";q=3;w=60");
            assertThat(answer.headers().firstValue("X-RateLimit-Limit")).hasValue("3");
            if (answer.statusCode() == 429) {
                // Never past the window but by the microseconds of admissions stamped one apart (61 s in
                // whole seconds), whatever order the concurrent requests read the clock in.
                String retryAfter = answer.headers().firstValue("Retry-After").orElseThrow();
                assertThat(Long.parseLong(retryAfter)).isBetween(1L, 61L);
                assertThat(answer.headers().firstValue("RateLimit")).hasValue("\"" + policy + "\";r=0;t=" + retryAfter);
                assertThat(answer.headers().firstValue("X-RateLimit-Reset")).hasValueSatisfying(
                        reset -> assertThat(Long.parseLong(reset)).isBetween(1L, 61L));
                assertThat(answer.body()).contains("\"status\":429", "quota-exceeded",
                        "allows 3 requests per 1m on this server while the rate limiter cannot reach Redis");
            } else {
                // sliding-log keeps each admission one window from its stamp: 60 s, or 60 s and the few
                // microseconds of admissions in one microsecond stamped one apart (61 in whole seconds).
                assertThat(answer.headers().firstValue("RateLimit")).hasValueSatisfying(
                        value -> assertThat(value).matches("\"" + policy + "\";r=[012];t=6[01]"));
                assertThat(answer.headers().firstValue("X-RateLimit-Reset")).hasValueSatisfying(
                        reset -> assertThat(reset).isIn("60", "61"));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anUnreachableRedisIsLimitedOnTheNodeAtLocalLimitWithAnOrdinary429(Kind kind) throws Exception {
        URI app = deploy(kind, params("redisUri", "redis://127.0.0.1:" + deadPort()));

        assertLocallyLimited(app, "c", 12);
        assertThat(fire(app, 5, "other")).as("each client alone").filteredOn(answer -> answer.statusCode() == 200)
                .hasSize(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void whenRedisIsBackItAloneDecidesAgain(Kind kind) throws Exception {
        URI app = deploy(kind, params());
        assertThat(Http.get(app, "X-Client", "warm").headers().firstValue("X-RateLimit-Limit")).hasValue("10");

        redis.stop();
        assertLocallyLimited(app, "c-" + kind, 8);
        redis.start();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Http.get(app, "X-Client", "probe-" + System.nanoTime()).headers().firstValue("X-RateLimit-Limit")
                .equals(java.util.Optional.of("10"))) {
            assertThat(System.nanoTime()).as("Redis decides again within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            statuses.add(Http.get(app, "X-Client", "c-" + kind).statusCode());
        }
        assertThat(statuses).as("the restarted Redis's limit of 10, not the exhausted local count")
                .containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429);
    }

    static Stream<Arguments> badLocalLimits() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            cases.add(Arguments.of(kind, "local", "0",
                    "init-param 'localLimit' must be a whole number between 1 and 1125899906842624, but was 0"));
            cases.add(Arguments.of(kind, "local", "abc",
                    "init-param 'localLimit' must be a whole number of at least 1, but was 'abc'"));
            cases.add(Arguments.of(kind, "allow", "3", "init-param 'localLimit' applies only with "
                    + "onRedisFailure=local, but init-param 'onRedisFailure' is 'allow' (localLimit was '3')"));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}: onRedisFailure={1}, localLimit={2}")
    @MethodSource("badLocalLimits")
    void aBadLocalLimitStopsTheWebappNamingItAndItsValue(Kind kind, String onRedisFailure, String localLimit,
            String message) {
        assertThatThrownBy(() -> deploy(kind, params("onRedisFailure", onRedisFailure, "localLimit", localLimit)))
                .isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("is misconfigured: " + message);
    }
}
