package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.MBeanServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Usage charged after the response across two servers, a Tomcat and a Jetty on one Redis (Tomcat 9
 * and Jetty 9.4 in the javax build), init-params as the strings a web.xml holds: issue 40's "an
 * after-charge of 50 against a limit of 100 leaves 49 for the next request on the other server"
 * with README's lines as written; a debt charged by an asynchronous request denies on both servers;
 * countStatus, bad and absurd usages; the counters; and what is refused at startup.
 */
class ChargeAfterFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FILTER = RateLimitFilter.class.getName();
    private static final String USAGE = UsageServlet.class.getName();
    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static AppDescriptor.Builder app(String path, String filterName, Map<String, String> params) {
        return AppDescriptor.builder(path).filter(filterName, FILTER, params, "/work")
                .servlet("usage", USAGE, "/work").asyncSupported(filterName, "usage");
    }

    /** The {@code r} of the draft's {@code RateLimit} header: what the request's decision left. */
    private static long remaining(HttpResponse<String> answer) {
        String field = answer.headers().firstValue("RateLimit").orElseThrow();
        String r = field.substring(field.indexOf(";r=") + 3);
        return Long.parseLong(r.substring(0, r.indexOf(';')));
    }

    @Test
    void anAfterChargeOf50AgainstALimitOf100Leaves49ForTheNextRequestOnTheOtherServer() throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml charge after");
        assertThat(params).containsEntry("chargeAfter", "true").containsEntry("limit", "100");
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix() + "acceptance:");
        URI tomcat = containers.get(Kind.TOMCAT).deploy(app("/charge-t", "export", params)
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status").build());
        URI jetty = containers.get(Kind.JETTY).deploy(app("/charge-j", "export", params).build());

        HttpResponse<String> first = Http.get(tomcat.resolve("/charge-t/work?usage=50"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(remaining(first)).as("cost 1 taken up front").isEqualTo(99);
        HttpResponse<String> next = Http.get(jetty.resolve("/charge-j/work"));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(remaining(next)).as("49 charged after the first response, 1 for this request").isEqualTo(49);

        String json = Http.get(tomcat.resolve("/charge-t/status?format=json")).body();
        assertThat(json).contains("\"afterCharges\":1,\"permitsCharged\":49,\"chargeFailures\":0");
        assertThat((Long) server.getAttribute(RateLimiterJmx.name("/charge-t", "export", 1), "AfterCharges")).isEqualTo(1);
        assertThat((Long) server.getAttribute(RateLimiterJmx.name("/charge-t", "export", 1), "PermitsCharged")).isEqualTo(49);
        assertThat((Long) server.getAttribute(RateLimiterJmx.name("/charge-j", "export", 1), "AfterCharges")).isZero();
    }

    @Test
    void aDebtAnAsynchronousRequestChargesDeniesOnBothServersUntilItIsPaid() throws Exception {
        Map<String, String> params = FilterParams.of(redis, "algorithm", "gcra", "limit", "10", "window", "1h",
                "chargeAfter", "true", "keyPrefix", redis.keyPrefix() + "debt:");
        URI tomcat = containers.get(Kind.TOMCAT).deploy(app("/debt-t", "debt", params).build()).resolve("/debt-t/work");
        URI jetty = containers.get(Kind.JETTY).deploy(app("/debt-j", "debt", params).build()).resolve("/debt-j/work");
        HttpResponse<String> async = Http.get(URI.create(jetty + "?async=true&number=10"));
        assertThat(async.statusCode()).isEqualTo(200);
        assertThat(async.body()).isEqualTo("served");
        assertThat(remaining(async)).isEqualTo(9);
        // The charge follows the asynchronous completion, which the client may see first: wait for it
        // on Jetty's bean. The deadline only stops a hang.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((Long) server.getAttribute(RateLimiterJmx.name("/debt-j", "debt", 1), "AfterCharges") == 0
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat((Long) server.getAttribute(RateLimiterJmx.name("/debt-j", "debt", 1), "PermitsCharged")).isEqualTo(9);

        for (URI node : new URI[] {tomcat, jetty}) {
            HttpResponse<String> denied = Http.get(node);
            assertThat(denied.statusCode()).as("10 of 10 taken on Jetty: denied on %s", node).isEqualTo(429);
            // The bucket is full: the next permit comes one interval (360 s) after the charge.
            assertThat(Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow())).isBetween(358L, 360L);
        }
    }

    @Test
    void countStatusBadAndAbsurdUsagesAreChargedAsDocumentedAndLoggedOnce() throws Exception {
        Map<String, String> params = FilterParams.of(redis, "algorithm", "fixed-window", "limit", "100", "window", "1h",
                "countStatus", "2xx", "chargeAfter", "true", "keyPrefix", redis.keyPrefix() + "bounds:");
        URI work = containers.get(Kind.TOMCAT).deploy(app("/bounds", "bounds", params).build()).resolve("/bounds/work");
        String log = CapturedLog.during(() -> {
            assertThat(Http.get(URI.create(work + "?status=500&usage=50")).statusCode())
                    .as("an answer that does not count gives its permit back and is charged nothing").isEqualTo(500);
            for (String bad : new String[] {"-3", "abc", "2.5"}) {
                assertThat(Http.get(URI.create(work + "?usage=" + bad)).statusCode()).isEqualTo(200);
            }
            assertThat(Http.get(URI.create(work + "?number=7")).statusCode()).isEqualTo(200);
            assertThat(remaining(Http.get(work))).as("3 bad usages at 1, 7 for the number, 1 now").isEqualTo(89);
            assertThat(Http.get(URI.create(work + "?usage=1000")).statusCode()).isEqualTo(200);
        });
        assertThat(CapturedLog.lines(log, "charges nothing for usage '-3' in dev.ratelimit.usage"))
                .as("one WARN for the three bad usages").isEqualTo(1);
        assertThat(CapturedLog.lines(log, "charges nothing for usage")).isEqualTo(1);
        assertThat(CapturedLog.lines(log, "charges usage '1000' in dev.ratelimit.usage as 100 permits")).isEqualTo(1);
        HttpResponse<String> denied = Http.get(work);
        assertThat(denied.statusCode()).as("capped at the capacity, 100, and still over the limit").isEqualTo(429);
        assertThat(Http.get(URI.create(work + "?usage=0")).statusCode()).as("a denial charges nothing").isEqualTo(429);
    }

    @Test
    void whatCannotKeepADebtIsRefusedAtStartupNamingChargeAfter() {
        assertRefused(Map.of("algorithm", "concurrency"),
                "init-param 'chargeAfter' (true) cannot be combined with algorithm concurrency");
        assertRefused(Map.of("leases", "true"), "init-param 'chargeAfter' (true) cannot be combined with leases");
        assertRefused(Map.of("transport", "transaction"), "cannot be combined with transport transaction");
        assertRefused(Map.of("algorithm", "leaky-bucket"), "algorithm leaky-bucket: its state cannot hold a debt");
        assertRefused(Map.of("limits", "10 per 1m by ip; 100 per 1h by global"), "several rules");
    }

    private static void assertRefused(Map<String, String> settings, String message) {
        Map<String, String> params = new LinkedHashMap<>(settings);
        if (!settings.containsKey("limits")) {
            params.put("limit", "3");
            params.put("window", "1m");
        }
        params.put("chargeAfter", "true");
        params.put("redisUri", redis.uri());
        assertThatThrownBy(() -> containers.get(Kind.JETTY).deploy(AppDescriptor.builder("/refused-" + refusals++)
                .filter("charged", FILTER, params, "/*").build()))
                .isInstanceOf(DeploymentFailedException.class).hasMessageContaining(message);
    }

    private static int refusals;
}
