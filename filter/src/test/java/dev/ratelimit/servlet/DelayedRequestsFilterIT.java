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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.resps.Tuple;

/**
 * {@code maxDelay} across two servers, a Tomcat and a Jetty on one Redis (Tomcat 9 and Jetty 9.4 in
 * the javax build): issue 40's "60 requests of one client at once against sliding-log, limit=10,
 * window=2s, maxDelay=10s over two servers are all answered 200, each no earlier than its slot, with
 * no more than 10 started in any 2 s and no thread held while waiting". And what cannot wait: a
 * servlet that is not async-supported gets the 429 and one WARN naming it, a filter not mapped for
 * ASYNC is found out and stops delaying, at once when the webapp's descriptor says so; for both the
 * status page's verdict names what to change.
 */
class DelayedRequestsFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FILTER = RateLimitFilter.class.getName();
    private static final String SERVLET = StartRecordingServlet.class.getName();
    private static final ServletContainers.Pool containers = new ServletContainers.Pool();

    @AfterAll
    static void stop() {
        containers.close();
    }

    @BeforeEach
    void forget() {
        StartRecordingServlet.STARTS.clear();
    }

    private static URI deploy(Kind kind, String path, Map<String, String> params, boolean async, boolean asyncDispatch) {
        AppDescriptor.Builder app = AppDescriptor.builder(path).withoutEcho().filter("waiting", FILTER, params, "/work")
                .servlet("recording", SERVLET, "/work")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status");
        if (asyncDispatch) {
            app.dispatchers("waiting", DispatcherType.REQUEST, DispatcherType.ASYNC);
        }
        if (async) {
            app.asyncSupported("waiting", "recording");
        }
        try {
            return containers.get(kind).deploy(app.build()).resolve(path + "/work");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> params(String prefix) {
        return Map.of("algorithm", "sliding-log", "limit", "10", "window", "2s", "maxDelay", "10s",
                "keyPrefix", prefix, "redisUri", redis.uri());
    }

    /**
     * Threads of the test JVM parked or sleeping inside the filter's chain now, not for a Redis reply:
     * each would be a server thread held while its request waits. (Threads running through the filter,
     * or waiting for the burst's last replies on a busy machine, are not holding a request for its turn.)
     */
    private static long threadsWaitingInTheFilter() {
        return Thread.getAllStackTraces().entrySet().stream().filter(thread -> {
            Thread.State state = thread.getKey().getState();
            if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                return false;
            }
            boolean inTheFilter = false;
            for (StackTraceElement frame : thread.getValue()) {
                String type = frame.getClassName();
                if (type.startsWith("dev.ratelimit.internal.redis.") || type.startsWith("redis.clients.")) {
                    // Waiting for Redis' reply to a decision: a busy machine delivers the burst's late.
                    return false;
                }
                inTheFilter |= type.equals(RateLimitFilter.class.getName());
            }
            return inTheFilter;
        }).count();
    }

    /** The status page's verdict on the policy (the filter's name), from its JSON. */
    private static Map<String, Object> verdict(URI target) throws Exception {
        String json = Http.get(target.resolve("status?format=json")).body();
        return map(policy(map(MiniJson.parse(json)), "waiting").get("verdict"));
    }

    /** Entries in the policy's sliding logs: requests decided, at once or for their turn. */
    private static long decided(String prefix) {
        return redis.client().keys(prefix + "*").stream().filter(key -> !PolicyKeys.isPolicyKey(key))
                .mapToLong(key -> redis.client().zcard(key)).sum();
    }

    @Test
    void sixtyAtOnceOverTwoServersAreAllServedEachAtItsTurnWithoutAThreadHeld() throws Exception {
        String prefix = redis.keyPrefix() + "sixty:";
        List<URI> servers = List.of(deploy(Kind.TOMCAT, "/sixty", params(prefix), true, true),
                deploy(Kind.JETTY, "/sixty", params(prefix), true, true));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            HttpRequest request = HttpRequest.newBuilder(servers.get(i % 2)).timeout(Duration.ofSeconds(30)).build();
            answers.add(Http.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        // Once all 60 are decided (each has its entry in the sliding log), 50 wait for their turn, held
        // without a thread: none may be parked or asleep in the filter meanwhile.
        // Sampled while at least 30 answers are outstanding: held, each sample would count 30 or more.
        // A thread may park in the filter for a moment for other reasons, so the median is judged.
        List<Long> samples = new ArrayList<>();
        while (!answers.stream().allMatch(CompletableFuture::isDone)) {
            long outstanding = answers.stream().filter(answer -> !answer.isDone()).count();
            if (decided(prefix) == 60 && outstanding >= 30) {
                samples.add(threadsWaitingInTheFilter());
            }
            Thread.sleep(20);
        }
        assertThat(samples).as("sampled while they waited").hasSizeGreaterThan(10);
        long mostHeld = samples.stream().sorted().collect(Collectors.toList()).get(samples.size() / 2);

        List<HttpResponse<String>> responses = answers.stream().map(CompletableFuture::join).collect(Collectors.toList());
        assertThat(responses).as("all answered 200").allSatisfy(response -> assertThat(response.statusCode()).isEqualTo(200));
        long delayed = responses.stream().filter(response -> response.headers().firstValue(Admission.DELAY_HEADER).isPresent())
                .count();
        // 10 at once and 50 at their turns, unless the 60 took longer than a window to arrive.
        assertThat(delayed).as("told how long they waited").isGreaterThanOrEqualTo(40);
        assertThat(mostHeld).as("threads waiting in the filter, median of %s (held, 30 or more would)", samples)
                .isLessThanOrEqualTo(3);

        List<Long> slots = redis.client().keys(prefix + "*").stream().filter(key -> !PolicyKeys.isPolicyKey(key))
                .flatMap(key -> redis.client().zrangeWithScores(key, 0, -1).stream()).map(Tuple::getScore)
                .map(Double::longValue).sorted().collect(Collectors.toList());
        assertThat(slots).as("one sliding log, one entry per request, each at its slot").hasSize(60);
        for (int i = 10; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 10)).as("no more than 10 in any 2 s").isGreaterThanOrEqualTo(2_000_000L);
        }
        long delayedOnBoth = 0;
        for (URI server : servers) {
            String status = Http.get(server.resolve("status?format=json")).body();
            Matcher waiting = Pattern.compile("\"waiting\":\\{\"now\":(\\d+),\"delayed\":(\\d+),\"refusedQueueFull\":0,\"refusedClientShare\":0}")
                    .matcher(status);
            assertThat(waiting.find()).as("the status page counts them: %s", status).isTrue();
            assertThat(waiting.group(1)).as("none waiting now").isEqualTo("0");
            delayedOnBoth += Long.parseLong(waiting.group(2));
        }
        assertThat(delayedOnBoth).as("the status pages' delayed, both servers").isEqualTo(delayed);
        List<Long> starts = StartRecordingServlet.STARTS.stream().sorted().collect(Collectors.toList());
        assertThat(starts).hasSize(60);
        for (int i = 0; i < 60; i++) {
            assertThat(starts.get(i)).as("the %dth request to run ran no earlier than the %dth slot", i + 1, i + 1)
                    .isGreaterThanOrEqualTo(slots.get(i));
        }
    }

    @Test
    void theConfigurationPagesLinesLetTwelveAtOnceWait() throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml wait for the turn");
        assertThat(params).containsEntry("maxDelay", "10s").containsEntry("algorithm", "sliding-log");
        assertThat(ReadmeSnippets.xml("web.xml wait for the turn")).contains("<dispatcher>ASYNC</dispatcher>",
                "<async-supported>true</async-supported>");
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix() + "docs:");
        URI target = deploy(Kind.JETTY, "/export", params, true, true);
        assertThat(Http.concurrentStatuses(12, i -> target)).as("10 at once, 2 at their turn 2 s later")
                .isEqualTo(Map.of(200, 12));
    }

    @Test
    void aServletThatCannotGoAsyncGetsThe429AndOneWarningNamingIt() throws Exception {
        String prefix = redis.keyPrefix() + "sync:";
        URI target = deploy(Kind.TOMCAT, "/sync", params(prefix), false, true);
        String log = CapturedLog.during(() -> {
            assertThat(Http.concurrentStatuses(12, i -> target)).isEqualTo(Map.of(200, 10, 429, 2));
            assertThat(Http.get(target).statusCode()).isEqualTo(429);
        });
        assertThat(CapturedLog.lines(log, "cannot wait")).as("one WARN").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "(servlet 'recording')")).as("naming the servlet").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "[NOT_ASYNC_SUPPORTED]")).as("with its code").isEqualTo(1);
        Map<String, Object> verdict = verdict(target);
        assertThat(verdict.get("level")).isEqualTo("warning");
        assertThat((String) verdict.get("text")).as("the verdict names the servlet and what to add")
                .startsWith("misconfigured (NOT_ASYNC_SUPPORTED): requests to /sync/work (servlet 'recording')")
                .contains("maxDelay", "(3 since start)", "<async-supported>true</async-supported>");
    }

    @Test
    void aFilterNotMappedForAsyncIsFoundOutAndStopsDelaying() throws Exception {
        String prefix = redis.keyPrefix() + "unmapped:";
        Map<String, String> params = Map.of("algorithm", "gcra", "limit", "1", "window", "1s", "maxDelay", "2s",
                "keyPrefix", prefix, "redisUri", redis.uri());
        URI target = deploy(Kind.JETTY, "/unmapped", params, true, false);
        String log = CapturedLog.during(() -> {
            assertThat(Http.get(target).statusCode()).isEqualTo(200);
            HttpResponse<String> delayed = Http.get(target);
            assertThat(delayed.statusCode()).as("delayed, then served by the servlet alone").isEqualTo(200);
            assertThat(delayed.headers().firstValue(Admission.DELAY_HEADER)).isPresent();
            // The container tells the filter each request completed after answering it; three in a row
            // that came back unseen, and none ever seen, switch delaying off (one proves nothing).
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (Http.get(target).statusCode() != 429 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        });
        assertThat(CapturedLog.lines(log, "<dispatcher>ASYNC</dispatcher>")).as("one WARN").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "[NO_ASYNC_DISPATCHER]")).as("with its code").isEqualTo(1);
        assertThat(Http.get(target).statusCode()).as("found out: over the limit is refused again").isEqualTo(429);
        Map<String, Object> verdict = verdict(target);
        assertThat(verdict.get("level")).isEqualTo("warning");
        assertThat((String) verdict.get("text")).as("the verdict names the filter-mapping's missing dispatcher")
                .startsWith("misconfigured (NO_ASYNC_DISPATCHER): RateLimitFilter is not mapped for the ASYNC dispatcher")
                .contains("maxDelay", "<dispatcher>ASYNC</dispatcher>", "filter-mapping");
    }

    @Test
    void aDescriptorMappingTheFilterWithoutAsyncIsReportedAtStartupAndNothingWaitsInVain() throws Exception {
        String prefix = redis.keyPrefix() + "descriptor:";
        Map<String, String> params = Map.of("algorithm", "gcra", "limit", "1", "window", "1s", "maxDelay", "2s",
                "keyPrefix", prefix, "redisUri", redis.uri());
        String webXml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<web-app xmlns=\"http://xmlns.jcp.org/xml/ns/javaee\""
                + " version=\"3.1\"><filter-mapping><filter-name>waiting</filter-name><url-pattern>/work</url-pattern>"
                + "</filter-mapping></web-app>";
        AppDescriptor app = AppDescriptor.builder("/descriptor").withoutEcho().filter("waiting", FILTER, params, "/work")
                .servlet("recording", SERVLET, "/work")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status")
                .asyncSupported("waiting", "recording").resource("/WEB-INF/web.xml", webXml).build();
        URI[] target = new URI[1];
        String log = CapturedLog.during(() -> target[0] = containers.get(Kind.TOMCAT).deploy(app).resolve("/descriptor/work"));
        assertThat(CapturedLog.lines(log, "[NO_ASYNC_DISPATCHER]")).as("one WARN at startup").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "WEB-INF/web.xml maps RateLimitFilter without <dispatcher>ASYNC</dispatcher>"))
                .isEqualTo(1);
        assertThat(Http.get(target[0]).statusCode()).isEqualTo(200);
        HttpResponse<String> over = Http.get(target[0]);
        assertThat(over.statusCode()).as("refused at once: it would not come back through the filter").isEqualTo(429);
        assertThat(over.headers().firstValue(Admission.DELAY_HEADER)).isEmpty();
        assertThat((String) verdict(target[0]).get("text")).startsWith("misconfigured (NO_ASYNC_DISPATCHER)");
    }
}
