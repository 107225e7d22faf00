package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.map;
import static dev.ratelimit.servlet.MiniJson.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import jakarta.servlet.DispatcherType;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Requests waiting for their turn ({@code maxDelay}) when the webapp is undeployed or redeployed:
 * each is answered at once (503, its turn given back), the filter's timer thread ends with it, and
 * nothing is left holding the webapp: Tomcat's leak check stays quiet and the webapp's context and
 * class loader can be collected. Tomcat and Jetty (Tomcat 9 and Jetty 9.4 in the javax build).
 */
class DelayedRequestsUndeployIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Where Tomcat reports a thread a stopped webapp left running (its leak check). */
    private static final Logger TOMCAT_LEAK_CHECK = Logger.getLogger("org.apache.catalina.loader.WebappClassLoaderBase");
    private static final String FILTER_NAME = "leaving";
    private static final long REDIS_TIMEOUT_MILLIS = 300;
    /** How long Tomcat's undeploy waits for requests in flight (StandardContext's unloadDelay), the waiting ones too. */
    private static final long UNLOAD_DELAY_MILLIS = 2000;
    private static final ServletContainers.Pool containers = new ServletContainers.Pool();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI deploy(ServletContainer container, String path, String prefix) throws Exception {
        return deploy(container, path, prefix, "2");
    }

    private static URI deploy(ServletContainer container, String path, String prefix, String limit) throws Exception {
        return deploy(container, path, prefix, limit, redis.uri());
    }

    private static URI deploy(ServletContainer container, String path, String prefix, String limit, String redisUri)
            throws Exception {
        Map<String, String> params = Map.of("algorithm", "sliding-log", "limit", limit, "window", "30s",
                "maxDelay", "60s", "keyPrefix", prefix, "redisUri", redisUri, "redisTimeout", REDIS_TIMEOUT_MILLIS + "ms");
        AppDescriptor app = AppDescriptor.builder(path).withoutEcho().listener(ContextTracker.class.getName())
                .filter(FILTER_NAME, RateLimitFilter.class.getName(), params, "/work")
                .servlet("recording", StartRecordingServlet.class.getName(), "/work")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status")
                .dispatchers(FILTER_NAME, DispatcherType.REQUEST, DispatcherType.ASYNC)
                .asyncSupported(FILTER_NAME, "recording").build();
        return container.deploy(app).resolve(path + "/work");
    }

    /** Five requests of one client at once: two run now, three wait their turns (30 and 60 s ahead). */
    private static List<CompletableFuture<HttpResponse<String>>> fiveAtOnce(URI target, String prefix) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        // All five decided (each wrote its entry), and the decisions in flight, which hold a place too,
        // all back: then exactly the three waiting their turn hold one, until their turns.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        boolean settled = false;
        while (!settled && System.nanoTime() < deadline) {
            settled = entries(prefix) == 5 && waitingNow(target) == 3;
            if (!settled) {
                Thread.sleep(20);
            }
        }
        assertThat(settled).as("five decided, three waiting for their turn (now %s, entries %s)", waitingNow(target),
                entries(prefix)).isTrue();
        return answers;
    }

    private static int waitingNow(URI target) {
        String json = Http.get(target.resolve("status?format=json")).body();
        return ((Number) map(policy(map(MiniJson.parse(json)), FILTER_NAME).get("waiting")).get("now")).intValue();
    }

    private static long entries(String prefix) {
        return redis.client().keys(prefix + "*").stream().filter(key -> !PolicyKeys.isPolicyKey(key))
                .mapToLong(key -> redis.client().zcard(key)).sum();
    }

    private static List<Thread> timerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("ratelimit-delay-" + FILTER_NAME + "-") && thread.isAlive())
                .collect(Collectors.toList());
    }

    /** Tomcat's leak-check warnings about threads while the action runs (its own logger, nothing else's). */
    private static List<String> leakWarnings(ThrowingRunnable action) throws Exception {
        List<String> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                // Its thread check; Tomcat 9 also warns here about a check that needs --add-opens. Not about
                // Tomcat's own utility thread, which its background processor (every 10 s) binds to each context
                // in turn: caught processing the stopping one, it is named, whatever the webapp did.
                String text = String.valueOf(record.getMessage()) + " " + java.util.Arrays.toString(record.getParameters());
                if (record.getLevel().intValue() >= Level.WARNING.intValue() && text.contains("thread")
                        && !text.contains("Catalina-utility-")) {
                    synchronized (warnings) {
                        warnings.add(text);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        TOMCAT_LEAK_CHECK.addHandler(handler);
        try {
            action.run();
        } finally {
            TOMCAT_LEAK_CHECK.removeHandler(handler);
        }
        return warnings;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void requestsWaitingAtUndeployAreAnswered503AtOnceWithTheirTurnsGivenBack(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "undeploy-" + kind + ":";
        ServletContainer container = containers.get(kind);
        URI target = deploy(container, "/undeploy", prefix);
        List<CompletableFuture<HttpResponse<String>>> answers = fiveAtOnce(target, prefix);

        List<String> leaks = leakWarnings(() -> container.undeploy("/undeploy"));
        List<HttpResponse<String>> responses = answers.stream().map(CompletableFuture::join).collect(Collectors.toList());

        assertThat(responses).extracting(HttpResponse::statusCode).as("answered at undeploy, not at their turns")
                .containsExactlyInAnyOrder(200, 200, 503, 503, 503);
        for (HttpResponse<String> stopped : responses.stream().filter(r -> r.statusCode() == 503).collect(Collectors.toList())) {
            assertThat(stopped.headers().firstValue("Retry-After")).hasValueSatisfying(
                    seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 60L));
            assertThat(stopped.body()).contains("stopped the application while the request waited for its turn");
        }
        assertThat(entries(prefix)).as("the three turns given back").isEqualTo(2);
        assertThat(timerThreads()).as("the filter's timer thread ended with it").isEmpty();
        assertThat(leaks).as("Tomcat's leak check").isEmpty();
    }

    /**
     * Redis stops answering (a host gone: calls hang until redisTimeout) while three requests wait, and
     * then the webapp stops: each is still answered 503, never 500, and its body promises no give-back;
     * the undeploy waits for Redis only until the circuit breaker opens, and the turns, which Redis
     * never heard of again, stay counted (the safe side) once it answers again. No thread is left.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void requestsWaitingWhenRedisHangsAtUndeployAreStillAnswered503AtOnce(Kind kind) throws Exception {
        String prefix = redis.keyPrefix() + "hung-" + kind + ":";
        ServletContainer container = containers.get(kind);
        try (FaultProxy proxy = new FaultProxy(redis.host(), redis.port())) {
            URI target = deploy(container, "/hung", prefix, "2", proxy.redisUri());
            List<CompletableFuture<HttpResponse<String>>> answers = fiveAtOnce(target, prefix);
            proxy.blackhole();

            long start = System.nanoTime();
            container.undeploy("/hung");
            long undeployMillis = (System.nanoTime() - start) / 1_000_000;
            List<HttpResponse<String>> responses = answers.stream().map(CompletableFuture::join).collect(Collectors.toList());

            assertThat(responses).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(200, 200, 503, 503, 503);
            assertThat(responses.stream().filter(r -> r.statusCode() == 503).map(HttpResponse::body))
                    .allSatisfy(body -> assertThat(body).contains("stopped the application").doesNotContain("given back"));
            // The give-backs wait for Redis until the breaker opens (redisBreakerFailures, 3), then fail at once:
            // at most 3 x redisTimeout, and a stop's other waits (Tomcat's unloadDelay for requests in flight, 2 s).
            assertThat(undeployMillis).as("the undeploy, in ms").isLessThan(3 * REDIS_TIMEOUT_MILLIS + UNLOAD_DELAY_MILLIS + 1500);
            proxy.heal();
            assertThat(entries(prefix)).as("turns Redis never heard of again stay counted").isEqualTo(5);
            assertThat(timerThreads()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void aRedeployWithRequestsWaitingLeavesNoThreadAndNothingHoldingTheOldWebapp(Kind kind) throws Exception {
        ServletContainer container = containers.get(kind);
        ContextTracker.STARTED.clear();
        List<String> leaks = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            String prefix = redis.keyPrefix() + "redeploy-" + kind + "-" + round + ":";
            URI target = deploy(container, "/redeploy", prefix);
            List<CompletableFuture<HttpResponse<String>>> answers = fiveAtOnce(target, prefix);
            leaks.addAll(leakWarnings(() -> container.undeploy("/redeploy")));
            assertThat(answers.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 503).count()).isEqualTo(3);
        }
        assertThat(timerThreads()).isEmpty();
        assertThat(leaks).as("Tomcat's leak check").isEmpty();
        List<WeakReference<Object>> started = new ArrayList<>(ContextTracker.STARTED);
        assertThat(started).as("each deployment's context (and Tomcat's class loader)").hasSizeGreaterThanOrEqualTo(2);
        // Deployed again and serving, over the same connections: what a container caches per connection
        // (Jetty keeps the last request's context until the connection's next request) moves on.
        URI again = deploy(container, "/redeploy", redis.keyPrefix() + "redeploy-" + kind + "-again:", "1000");
        assertThat(Http.concurrentStatuses(8, i -> again)).isEqualTo(Map.of(200, 8));
        container.undeploy("/redeploy");
        for (int attempt = 0; attempt < 20 && started.stream().anyMatch(ref -> ref.get() != null); attempt++) {
            System.gc();
            Thread.sleep(50);
        }
        assertThat(started.stream().filter(ref -> ref.get() != null).map(ref -> ref.get().getClass().getName()))
                .as("still reachable after both undeploys").isEmpty();
    }
}
