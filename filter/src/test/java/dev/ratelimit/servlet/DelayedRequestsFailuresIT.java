package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.map;
import static dev.ratelimit.servlet.MiniJson.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code maxDelay} behind the application filters a webapp already has, and when the container
 * lets it down: a filter ahead answering a dispatch itself, a request wrapper failing at the turn,
 * a container refusing to suspend, and one client sending faster than the rest. In Tomcat and
 * Jetty (Tomcat 9 and Jetty 9.4 in the javax build), over real HTTP.
 */
class DelayedRequestsFailuresIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    /** The documented mapping, as the webapp's own descriptor says it: evidence no request can fake. */
    private static final String WEB_XML_WITH_ASYNC = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<web-app xmlns=\"http://xmlns.jcp.org/xml/ns/javaee\" version=\"3.1\">\n"
            + "  <filter-mapping><filter-name>waiting</filter-name><url-pattern>/work</url-pattern>"
            + "<dispatcher>REQUEST</dispatcher><dispatcher>ASYNC</dispatcher></filter-mapping>\n</web-app>\n";

    @AfterAll
    static void stop() {
        containers.close();
    }

    /**
     * The ahead filter (mode as given), then the rate limit filter "waiting", both mapped for REQUEST
     * and ASYNC, before the recording servlet; all async-supported.
     */
    private static URI deploy(Kind kind, String path, String mode, Map<String, String> params, boolean descriptor) {
        AppDescriptor.Builder app = AppDescriptor.builder(path).withoutEcho()
                .filter("ahead", AheadOfTheLimitFilter.class.getName(), Map.of("mode", mode), "/work")
                .filter("waiting", RateLimitFilter.class.getName(), params, "/work")
                .servlet("recording", StartRecordingServlet.class.getName(), "/work")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status")
                .dispatchers("ahead", DispatcherType.REQUEST, DispatcherType.ASYNC)
                .dispatchers("waiting", DispatcherType.REQUEST, DispatcherType.ASYNC)
                .asyncSupported("ahead", "waiting", "recording");
        if (descriptor) {
            app.resource("/WEB-INF/web.xml", WEB_XML_WITH_ASYNC);
        }
        try {
            return containers.get(kind).deploy(app.build()).resolve(path + "/work");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Long enough that two requests of one client sent together fall in one window even on a loaded
     * machine (500 ms saw them land in two, and the second was admitted at once), short enough that a
     * held request's turn comes soon.
     */
    private static final String WINDOW = "1500ms";

    private static Map<String, String> params(String prefix, String... more) {
        Map<String, String> params = new HashMap<>(Map.of("algorithm", "sliding-log", "keyPrefix", prefix,
                "redisUri", redis.uri(), "key", "header:X-Client"));
        for (int i = 0; i < more.length; i += 2) {
            params.put(more[i], more[i + 1]);
        }
        return params;
    }

    private static CompletableFuture<HttpResponse<String>> send(URI target, String client, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(20)).header("X-Client", client);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return Http.CLIENT.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Two requests of one client at once: with a limit of 1, one runs now and one is held for its turn. */
    private static List<HttpResponse<String>> pair(URI target, String client, String... headers) {
        List<CompletableFuture<HttpResponse<String>>> two = List.of(send(target, client, headers), send(target, client, headers));
        return two.stream().map(CompletableFuture::join).collect(Collectors.toList());
    }

    private static long entries(String prefix) {
        return redis.client().keys(prefix + "*").stream().filter(key -> !PolicyKeys.isPolicyKey(key))
                .mapToLong(key -> redis.client().zcard(key)).sum();
    }

    private static Map<String, Object> report(URI target) {
        return policy(map(MiniJson.parse(Http.get(target.resolve("status?format=json")).body())), "waiting");
    }

    private static boolean delayed(HttpResponse<String> response) {
        return response.headers().firstValue(Admission.DELAY_HEADER).isPresent();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void aFilterAheadAnsweringTheTurnsDispatchNeverSwitchesDelayingOffWhereTheDescriptorMapsAsync(Kind kind)
            throws Exception {
        String prefix = redis.keyPrefix() + "ahead-" + kind + ":";
        URI target = deploy(kind, "/ahead", "expired-login",
                params(prefix, "limit", "1", "window", WINDOW, "maxDelay", "5s"), true);
        String log = CapturedLog.during(() -> {
            List<CompletableFuture<HttpResponse<String>>> expired = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                expired.add(send(target, "expired-" + i / 2, "X-Expired", "yes"));
            }
            assertThat(expired.stream().map(CompletableFuture::join).map(HttpResponse::statusCode))
                    .as("each of four clients: one at once, one answered 401 at its turn")
                    .containsExactlyInAnyOrder(200, 200, 200, 200, 401, 401, 401, 401);
            List<HttpResponse<String>> other = pair(target, "other");
            assertThat(other).extracting(HttpResponse::statusCode).as("another client still waits for its turn")
                    .containsExactly(200, 200);
            assertThat(other.stream().filter(DelayedRequestsFailuresIT::delayed).count()).isEqualTo(1);
        });
        assertThat(CapturedLog.lines(log, "NO_ASYNC_DISPATCHER")).as("nothing to report").isZero();
        assertThat(map(report(target).get("verdict")).get("level")).isNotEqualTo("warning");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void withoutADescriptorOneDispatchAnsweredAheadDoesNotSwitchDelayingOff(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "nodescriptor-" + kind + ":";
        URI target = deploy(kind, "/nodescriptor", "expired-login",
                params(prefix, "limit", "1", "window", WINDOW, "maxDelay", "5s"), false);
        assertThat(pair(target, "expired", "X-Expired", "yes")).extracting(HttpResponse::statusCode)
                .containsExactlyInAnyOrder(200, 401);
        List<HttpResponse<String>> other = pair(target, "other");
        assertThat(other).extracting(HttpResponse::statusCode).containsExactly(200, 200);
        assertThat(other.stream().filter(DelayedRequestsFailuresIT::delayed).count()).as("held, not refused").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void aTurnTheContainerCannotResumeIsAnswered503AndGivesItsPermitsBackLoggedOnce(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "failing-" + kind + ":";
        URI target = deploy(kind, "/failing", "failing-attributes",
                params(prefix, "algorithm", "gcra", "limit", "1", "window", WINDOW, "maxDelay", "5s"), true);
        String log = CapturedLog.during(() -> {
            List<String> clients = List.of("first", "second");
            List<List<CompletableFuture<HttpResponse<String>>>> pairs = new ArrayList<>();
            for (String client : clients) {
                pairs.add(List.of(send(target, client), send(target, client)));
            }
            for (int c = 0; c < clients.size(); c++) {
                String client = clients.get(c);
                List<HttpResponse<String>> two = pairs.get(c).stream().map(CompletableFuture::join).collect(Collectors.toList());
                assertThat(two).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(200, 503);
                HttpResponse<String> failed = two.stream().filter(r -> r.statusCode() == 503).findFirst().orElseThrow();
                assertThat(failed.headers().firstValue("Retry-After")).isPresent();
                assertThat(failed.headers().firstValue("Content-Type")).hasValueSatisfying(
                        type -> assertThat(type).startsWith("application/problem+json"));
                assertThat(failed.body()).contains("\"status\":503", "could not resume the request",
                        "\"policy\":\"waiting\"");
                // Given back, its turn is free now: the next request runs at once (kept, it would wait its turn).
                HttpResponse<String> next = send(target, client).join();
                assertThat(next.statusCode()).isEqualTo(200);
                assertThat(delayed(next)).as("the failed turn was given back").isFalse();
            }
        });
        assertThat(CapturedLog.lines(log, "could not be resumed")).as("one WARN for both").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "attribute store refused")).as("with its cause").isGreaterThanOrEqualTo(1);
        assertThat(((Number) map(report(target).get("waiting")).get("now")).intValue()).as("no place left held").isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void aRequestTheContainerWillNotSuspendGetsThePlainDenialAndItsTurnBack(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "nosuspend-" + kind + ":";
        URI target = deploy(kind, "/nosuspend", "refuses-async",
                params(prefix, "limit", "1", "window", "10s", "maxDelay", "20s"), true);
        List<HttpResponse<String>> two = pair(target, "client");
        assertThat(two).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(200, 429);
        HttpResponse<String> denied = two.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        assertThat(denied.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(denied.body()).as("the policy's denial, not the container's error page")
                .contains("quota-exceeded", "\"policy\":\"waiting\"");
        assertThat(denied.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 10L));
        assertThat(denied.headers().firstValue("RateLimit")).hasValueSatisfying(field -> assertThat(field).contains("r=0"));
        assertThat(denied.headers().firstValue(Admission.DELAY_HEADER)).as("it did not wait").isEmpty();
        assertThat(entries(prefix)).as("the turn it was given, given back").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void oneGreedyClientLeavesWaitingPlacesForTheOthers(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "greedy-" + kind + ":";
        URI target = deploy(kind, "/greedy", "expired-login",
                params(prefix, "limit", "1", "window", "2s", "maxDelay", "30s", "maxDelayed", "4"), true);
        assertThat(send(target, "greedy").join().statusCode()).isEqualTo(200);
        // Seven over the limit at once: without a share, the four places would all be its own (2 to 8 s ahead).
        List<CompletableFuture<HttpResponse<String>>> greedy = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            greedy.add(send(target, "greedy"));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (greedy.stream().filter(CompletableFuture::isDone).count() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // While its places are held (2 and 4 s), each other client sends one request and then one over its limit.
        List<CompletableFuture<HttpResponse<String>>> othersWaiting = new ArrayList<>();
        for (String other : List.of("other-1", "other-2")) {
            assertThat(send(target, other).join().statusCode()).isEqualTo(200);
            othersWaiting.add(send(target, other));
        }

        List<HttpResponse<String>> greedyAnswers = greedy.stream().map(CompletableFuture::join).collect(Collectors.toList());
        assertThat(greedyAnswers.stream().filter(r -> r.statusCode() == 200 && delayed(r)).count())
                .as("half of the 4 places: it holds fewer than are free").isEqualTo(2);
        assertThat(greedyAnswers.stream().filter(r -> r.statusCode() == 429).count()).isEqualTo(5);
        for (CompletableFuture<HttpResponse<String>> waited : othersWaiting) {
            HttpResponse<String> answer = waited.join();
            assertThat(answer.statusCode()).as("each other client waits its turn").isEqualTo(200);
            assertThat(delayed(answer)).isTrue();
        }
        Map<String, Object> waiting = map(report(target).get("waiting"));
        assertThat(((Number) waiting.get("refusedClientShare")).intValue()).isEqualTo(5);
        assertThat(((Number) waiting.get("refusedQueueFull")).intValue()).isZero();
        assertThat(((Number) waiting.get("now")).intValue()).isZero();
    }
}
