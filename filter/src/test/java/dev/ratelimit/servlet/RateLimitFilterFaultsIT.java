package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Network faults between the filter and Redis, made by a {@link FaultProxy}: latency above the
 * timeout, a blackhole, resets, refused connections. For each: no 5xx but the policy's own 503, no
 * request waits longer than README's bound, and exact limiting once the network heals.
 *
 * <p>The bounds, with {@code redisTimeout} T = 300 ms, as README states them: a failing call costs
 * a wait for a pooled connection when all are busy, one wait of T (the connection, the quiet
 * check's PING or the script, whichever meets the fault first) and the replacement's connect, but a Redis that answers each round trip just inside T can cost a pool wait, a new
 * connection's handshake, the PING, the script and its NOSCRIPT resend: {@link #SLOW_BOUND_MILLIS}.
 * After healing, the breaker (default cool-down 500 ms) may have just opened, and a probe out at
 * that moment may still time out: limiting resumes within cool-down + T, under a second.
 */
class RateLimitFilterFaultsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final long T = 300;
    private static final int LIMIT = 5;
    /** Scheduling on two shared cores, the HTTP round trip, a GC pause: what the bounds allow above Redis' own cost. */
    private static final long MARGIN_MILLIS = 400;
    /**
     * What a wait bound allows above its design value and above the same burst's slowest request
     * through a healthy network, measured just before (the container's own queueing on two cores
     * that other builds may share: 604-664 ms for the faulted burst alone, 1,612 ms and 1,988 ms
     * under load against a fixed bound). The bound still proves that no request hangs on a dead Redis.
     */
    private static final long WAIT_MARGIN_MILLIS = 1000;
    /** A call that fails: a wait for a pooled connection (60 requests, 32 connections), T, and the replacement's connect. */
    private static final long FAULT_BOUND_MILLIS = 3 * T + WAIT_MARGIN_MILLIS;
    /** A Redis slow but answering within T each time: pool wait, handshake, PING, EVALSHA, EVAL. */
    private static final long SLOW_BOUND_MILLIS = 5 * T + WAIT_MARGIN_MILLIS;
    /** The breaker's default cool-down (redisBreakerCoolDown). */
    private static final long COOL_DOWN_MILLIS = 500;
    /**
     * Exact again by design within cool-down + T (800 ms, under the second the issue asks for); the
     * margin is for a busy machine's scheduling, not for Redis.
     */
    private static final Duration RESUME_BOUND = Duration.ofMillis(COOL_DOWN_MILLIS + T + MARGIN_MILLIS);

    private FaultProxy proxy;

    @BeforeEach
    void openProxy() {
        proxy = new FaultProxy(redis.host(), redis.port());
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    @AfterAll
    static void stop() {
        containers.close();
    }

    private URI deploy(Kind kind, String onRedisFailure, int poolSize) throws Exception {
        Map<String, String> params = new HashMap<>();
        params.put("redisUri", proxy.redisUri());
        params.put("keyPrefix", redis.keyPrefix() + "faults" + apps.get() + ":");
        params.put("redisTimeout", T + "ms");
        params.put("redisPoolSize", Integer.toString(poolSize));
        params.put("limit", Integer.toString(LIMIT));
        params.put("window", "1m");
        params.put("key", "header:X-Client");
        params.put("localDenyCache", "false");
        params.put("onRedisFailure", onRedisFailure);
        String path = "/faults" + apps.incrementAndGet();
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("faults" + apps.get(),
                RateLimitFilter.class.getName(), params, "/*").build());
    }

    private record Answer(int status, long millis, HttpResponse<String> response) {
    }

    /** Fires requests concurrently, each timed from its own start, for eight clients. */
    private static List<Answer> fire(URI app, int count, String client) throws Exception {
        List<CompletableFuture<Answer>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            HttpRequest request = HttpRequest.newBuilder(app).header("X-Client", client + (i % 8))
                    .timeout(Duration.ofSeconds(20)).build();
            answers.add(Http.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response ->
                    new Answer(response.statusCode(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                            response)));
        }
        List<Answer> done = new ArrayList<>();
        for (CompletableFuture<Answer> answer : answers) {
            done.add(answer.get(30, TimeUnit.SECONDS));
        }
        return done;
    }

    private static long slowest(List<Answer> answers) {
        return answers.stream().mapToLong(Answer::millis).max().orElse(0);
    }

    /** Until a request is limited by Redis again (it carries RateLimit headers); how long that took. */
    private static Duration untilLimitingResumes(URI app) throws InterruptedException {
        long start = System.nanoTime();
        while (Http.get(app, "X-Client", "probe-" + System.nanoTime()).headers().firstValue("RateLimit").isEmpty()) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(10)) {
                break;
            }
            Thread.sleep(10);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** limit × 200 then 429, every answer decided by Redis. */
    private static void assertExact(URI app, String client) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < LIMIT + 2; i++) {
            HttpResponse<String> response = Http.get(app, "X-Client", client);
            statuses.add(response.statusCode());
            assertThat(response.headers().firstValue("RateLimit")).as("answer %d decided by Redis", i).isPresent();
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429);
    }

    /** Runs traffic through a fault, checks every answer and the slowest, heals, checks exactness. */
    private void throughFault(Kind kind, String onRedisFailure, Consumer<FaultProxy> fault, String name) throws Exception {
        URI app = deploy(kind, onRedisFailure, 32);
        assertExact(app, "before-" + name);
        long healthy = slowest(fire(app, 60, "healthy-" + name));

        fault.accept(proxy);
        List<Answer> answers = fire(app, 60, name);

        int expected = onRedisFailure.equals("deny") ? 503 : 200;
        for (Answer answer : answers) {
            assertThat(answer.status()).as("%s on %s", name, kind).isEqualTo(expected);
            assertThat(answer.response().headers().firstValue("RateLimit")).as("nothing true to say").isEmpty();
            if (expected == 503) {
                assertThat(answer.response().headers().firstValue("Retry-After")).hasValue("1");
            }
        }
        long slowest = slowest(answers);
        System.out.printf("FAULT %s %s %s: slowest %d ms of %d (healthy: %d ms)%n", kind, name, onRedisFailure, slowest,
                answers.size(), healthy);
        assertThat(slowest).as("slowest request under %s, healthy %d ms", name, healthy)
                .isLessThanOrEqualTo(FAULT_BOUND_MILLIS + healthy);

        proxy.heal();
        Duration resumed = untilLimitingResumes(app);
        System.out.printf("FAULT %s %s %s: limiting resumed after %d ms%n", kind, name, onRedisFailure, resumed.toMillis());
        assertThat(resumed).as("limiting resumes within cool-down + timeout").isLessThanOrEqualTo(RESUME_BOUND);
        assertExact(app, "after-" + name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void latencyAboveTheTimeout(Kind kind) throws Exception {
        throughFault(kind, "allow", proxy -> proxy.latency(Duration.ofMillis(T + 100)), "latency");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void blackhole(Kind kind) throws Exception {
        throughFault(kind, "allow", FaultProxy::blackhole, "blackhole");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void resetConnections(Kind kind) throws Exception {
        throughFault(kind, "allow", FaultProxy::reset, "reset");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void refusedConnections(Kind kind) throws Exception {
        throughFault(kind, "allow", FaultProxy::refuse, "refuse");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void blackholeWithDenyAnswers503(Kind kind) throws Exception {
        throughFault(kind, "deny", FaultProxy::blackhole, "blackhole");
    }

    /**
     * The worst a decision can cost without failing: each round trip just inside the timeout, a pool
     * smaller than the traffic (a pool wait), fresh connections (their handshake), a node quiet for
     * over a second (the PING first) and scripts flushed (EVALSHA answered NOSCRIPT, then EVAL).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aSlowRedisAnsweringJustInsideTheTimeout(Kind kind) throws Exception {
        URI app = deploy(kind, "allow", 2);
        assertExact(app, "before-slow");
        long healthy = slowest(fire(app, 12, "healthy-slow"));
        proxy.latency(Duration.ofMillis(T / 2 - 20));
        redis.client().scriptFlush();
        // The quiet check starts after a second without an answer: this wait sets up the PING.
        Thread.sleep(1100);

        List<Answer> answers = fire(app, 12, "slow");

        assertThat(answers).allMatch(answer -> answer.status() == 200);
        long slowest = slowest(answers);
        long decided = answers.stream().filter(answer -> answer.response().headers().firstValue("RateLimit").isPresent())
                .count();
        System.out.printf("FAULT %s slow: slowest %d ms (healthy: %d ms), %d of %d decided by Redis%n", kind, slowest,
                healthy, decided, answers.size());
        assertThat(slowest).as("slowest request, healthy %d ms", healthy).isLessThanOrEqualTo(SLOW_BOUND_MILLIS + healthy);

        proxy.heal();
        assertThat(untilLimitingResumes(app)).isLessThanOrEqualTo(RESUME_BOUND);
        assertExact(app, "after-slow");
    }
}
