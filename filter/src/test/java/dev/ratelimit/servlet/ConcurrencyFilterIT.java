package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code algorithm=concurrency} through the filter, with README's snippet deployed as written (but
 * its Redis, and a policy name per test): a Tomcat and a Jetty node sharing one Redis never serve
 * more than {@code limit} at once, as {@link InFlightServlet} measures it, and every way a request
 * ends gives its lease back: a response, an exception, an asynchronous completion or timeout, and,
 * for a node cut off from Redis, the lease timeout. Leases are read from Redis, polled with a
 * deadline, never waited for blindly.
 */
class ConcurrencyFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final Pattern PARAM = Pattern.compile(
            "<param-name>([^<]+)</param-name><param-value>([^<]*)</param-value>");

    @AfterAll
    static void stop() {
        InFlightServlet.open();
        containers.close();
    }

    /** README's in-flight snippet, with this test's Redis and a policy of its own. */
    private static Map<String, String> readmeParams(String policy, String redisUri) throws Exception {
        String readme = ReadmeSnippets.documentation();
        int marker = readme.indexOf("<!-- web.xml in-flight limit");
        assertThat(marker).as("README marks its in-flight snippet").isPositive();
        int start = readme.indexOf("```xml", marker);
        Matcher param = PARAM.matcher(readme.substring(start, readme.indexOf("```", start + 6)));
        Map<String, String> params = new LinkedHashMap<>();
        while (param.find()) {
            params.put(param.group(1), param.group(2));
        }
        assertThat(params).containsEntry("algorithm", "concurrency").containsEntry("limit", "3");
        params.put("redisUri", redisUri);
        params.put("keyPrefix", redis.keyPrefix());
        params.put("policyName", policy);
        return params;
    }

    private static URI deploy(Kind kind, String path, Map<String, String> params) throws Exception {
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("exports", RateLimitFilter.class.getName(), params, "/*")
                .servlet("slow", InFlightServlet.class.getName(), "/slow")
                .asyncSupported("exports", "slow").build()).resolve("slow");
    }

    @Test
    void twentySlowRequestsOnATomcatAndAJettyNeverHaveMoreThanThreeInFlight() throws Exception {
        InFlightServlet.reset();
        String policy = "exports" + apps.incrementAndGet();
        Map<String, String> params = readmeParams(policy, redis.uri());
        URI onTomcat = deploy(Kind.TOMCAT, "/" + policy, params);
        URI onJetty = deploy(Kind.JETTY, "/" + policy, params);

        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            responses.add(sendAsync((i % 2 == 0 ? onTomcat : onJetty).resolve("slow?mode=hold")));
        }
        await("17 denials answered and 3 requests held", () -> InFlightServlet.inFlight.get() == 3
                && responses.stream().filter(CompletableFuture::isDone).count() == 17);
        assertThat(leases(policy)).as("one lease per request in flight, in Redis").isEqualTo(3);
        // The draft's quota unit, and no w: q=3;w=120 would read as 3 requests per 2 minutes.
        String policyField = "\"" + policy + "\";q=3;qu=\"concurrent-requests\"";
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            if (response.isDone()) {
                HttpResponse<String> denial = response.get();
                assertThat(denial.statusCode()).isEqualTo(429);
                String retryAfter = denial.headers().firstValue("Retry-After").orElseThrow();
                assertThat(Long.parseLong(retryAfter)).as("until the earliest lease expires, at least 1 s")
                        .isBetween(1L, 120L);
                assertThat(denial.headers().firstValue("RateLimit")).as("t is the Retry-After value")
                        .hasValue("\"" + policy + "\";r=0;t=" + retryAfter);
                assertThat(denial.headers().firstValue("RateLimit-Policy")).hasValue(policyField);
                assertThat(denial.body()).contains("allows 3 requests in flight at once");
            }
        }

        InFlightServlet.open();
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            HttpResponse<String> answer = response.get(30, TimeUnit.SECONDS);
            statuses.merge(answer.statusCode(), 1, Integer::sum);
            if (answer.statusCode() == 200) {
                assertThat(answer.headers().firstValue("RateLimit-Policy")).hasValue(policyField);
                assertThat(answer.headers().firstValue("RateLimit")).as("an admission: the places left, no time window")
                        .hasValueSatisfying(value -> assertThat(value).matches("\"" + policy + "\";r=[0-2]"));
            }
        }
        assertThat(statuses).containsExactly(Map.entry(200, 3), Map.entry(429, 17));
        assertThat(InFlightServlet.highWater.get()).as("the most served at once, on both nodes").isEqualTo(3);
        await("every lease given back", () -> leases(policy) == 0);
        assertThat(Http.get(onTomcat.resolve("slow?mode=hold")).statusCode()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aHandlerThatThrowsGivesItsLeaseBack(Kind kind) throws Exception {
        InFlightServlet.reset();
        String policy = "throwing" + apps.incrementAndGet();
        URI app = deploy(kind, "/" + policy, readmeParams(policy, redis.uri()));
        for (int i = 0; i < 5; i++) {
            assertThat(Http.get(app.resolve("slow?mode=throw")).statusCode()).as("request %d of 5 > limit 3", i + 1)
                    .isEqualTo(500);
            await("the lease given back", () -> leases(policy) == 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anAsyncRequestHoldsItsLeaseUntilItCompletes(Kind kind) throws Exception {
        InFlightServlet.reset();
        String policy = "async" + apps.incrementAndGet();
        URI app = deploy(kind, "/" + policy, readmeParams(policy, redis.uri()));
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(sendAsync(app.resolve("slow?mode=async")));
        }
        await("three asynchronous requests whose dispatch returned",
                () -> InFlightServlet.asyncDispatchesReturned.get() == 3 && InFlightServlet.inFlight.get() == 3);
        assertThat(leases(policy)).as("still held after the filter's dispatch returned").isEqualTo(3);
        assertThat(Http.get(app.resolve("slow?mode=hold")).statusCode()).isEqualTo(429);

        InFlightServlet.open();
        for (CompletableFuture<HttpResponse<String>> response : held) {
            assertThat(response.get(30, TimeUnit.SECONDS).body()).isEqualTo("served asynchronously");
        }
        await("every lease given back on completion", () -> leases(policy) == 0);
        assertThat(Http.get(app.resolve("slow?mode=hold")).statusCode()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anAsyncTimeoutGivesTheLeaseBack(Kind kind) throws Exception {
        InFlightServlet.reset();
        String policy = "timeout" + apps.incrementAndGet();
        URI app = deploy(kind, "/" + policy, readmeParams(policy, redis.uri()));
        for (int i = 0; i < 4; i++) {
            assertThat(Http.get(app.resolve("slow?mode=async-timeout")).statusCode()).as("the container's timeout")
                    .isEqualTo(500);
            await("the lease given back", () -> leases(policy) == 0);
        }
    }

    @Test
    void aNodeCutOffFromRedisLosesItsLeasesOnceTheWindowPasses() throws Exception {
        InFlightServlet.reset();
        String policy = "cut" + apps.incrementAndGet();
        try (FaultProxy jettysRedis = new FaultProxy(redis.host(), redis.port())) {
            Map<String, String> viaProxy = readmeParams(policy, jettysRedis.redisUri());
            viaProxy.put("window", "2s");
            Map<String, String> direct = new LinkedHashMap<>(viaProxy);
            direct.put("redisUri", redis.uri());
            URI onJetty = deploy(Kind.JETTY, "/" + policy, viaProxy);
            URI onTomcat = deploy(Kind.TOMCAT, "/" + policy, direct);

            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(sendAsync(onJetty.resolve("slow?mode=hold")));
            }
            await("three requests held on Jetty", () -> InFlightServlet.inFlight.get() == 3);
            assertThat(leases(policy)).isEqualTo(3);
            assertThat(Http.get(onTomcat.resolve("slow?mode=hold")).statusCode()).isEqualTo(429);

            jettysRedis.reset(); // Jetty can no longer reach Redis, like a node gone
            InFlightServlet.open();
            for (CompletableFuture<HttpResponse<String>> response : held) {
                assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).as("a failed release fails no request")
                        .isEqualTo(200);
            }
            assertThat(leases(policy)).as("Jetty's releases never arrived").isEqualTo(3);
            // The leases go with their key, whose TTL each acquisition set to the 2 s window: Redis
            // itself removes them within the window. Read from Redis rather than timed with a
            // stopwatch, which on a busy machine measures the polling thread's scheduling too.
            assertThat(leaseTtls(policy)).as("each lease key expires within the 2 s window").isNotEmpty()
                    .allSatisfy(ttl -> assertThat(ttl).isPositive().isLessThanOrEqualTo(2000L));

            await("the leases expired with their 2 s window", () -> leases(policy) == 0);
            assertThat(Http.get(onTomcat.resolve("slow?mode=hold")).statusCode()).isEqualTo(200);
        }
    }

    /** Leases in Redis for the policy: released ones are removed, expired ones go with the key's TTL. */
    private static long leases(String policy) {
        long held = 0;
        for (String key : PolicyKeys.without(redis.keys())) {
            if (key.startsWith(redis.keyPrefix() + policy + ":{")) {
                held += redis.client().zcard(key);
            }
        }
        return held;
    }

    /** The PTTL, in milliseconds, of each of the policy's lease keys in Redis. */
    private static List<Long> leaseTtls(String policy) {
        List<Long> ttls = new ArrayList<>();
        for (String key : PolicyKeys.without(redis.keys())) {
            if (key.startsWith(redis.keyPrefix() + policy + ":{")) {
                ttls.add(redis.client().pttl(key));
            }
        }
        return ttls;
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(URI uri) {
        return Http.CLIENT.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for: " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
