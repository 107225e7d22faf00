package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The penalty box across two servers, a Tomcat and a Jetty on one Redis (Tomcat 9 and Jetty 9.4 in
 * the javax build): issue 40's "a client over its limit with {@code penalty=5s} is refused on both
 * servers for 5 s, then admitted", timed by Redis' own clock, not by sleeps; and the configuration
 * page's web.xml lines, deployed as written.
 */
class PenaltyBoxFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FILTER = RateLimitFilter.class.getName();
    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI deploy(Kind kind, String path, Map<String, String> params) throws Exception {
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("boxed", FILTER, params, "/*").build())
                .resolve(path + "/work");
    }

    /** Redis' clock, in microseconds: the clock the box is kept by. */
    private static long redisMicros() {
        return (Long) redis.client().eval("local t = redis.call('TIME') return t[1] * 1000000 + t[2]");
    }

    /** The one penalty box under the prefix (the client is the loopback address, IPv4 or IPv6). */
    private static String onlyBox(String prefix) {
        Set<String> boxes = redis.client().keys(prefix + "*:{penalty}");
        assertThat(boxes).hasSize(1);
        String box = boxes.iterator().next();
        assertThat(box).isEqualTo(RedisKeys.penaltyBox(box.substring(0, box.length() - ":{penalty}".length())));
        return box;
    }

    @Test
    void aClientOverItsLimitIsRefusedOnBothServersForFiveSecondsThenAdmitted() throws Exception {
        String prefix = redis.keyPrefix() + "acceptance:";
        // 3 per second, so the limit itself frees up long before the penalty ends; one client (ip).
        Map<String, String> params = FilterParams.of(redis, "limit", "3", "window", "1s", "penalty", "5s",
                "keyPrefix", prefix);
        URI tomcat = deploy(Kind.TOMCAT, "/penalty", params);
        URI jetty = deploy(Kind.JETTY, "/penalty", params);
        URI[] servers = {tomcat, jetty};
        for (int i = 0; i < 3; i++) {
            assertThat(Http.get(servers[i % 2]).statusCode()).as("request %d, within the limit", i).isEqualTo(200);
        }
        HttpResponse<String> over = Http.get(jetty);
        assertThat(over.statusCode()).as("over the limit").isEqualTo(429);
        assertThat(over.headers().firstValue("Retry-After")).hasValue("5");
        String box = onlyBox(prefix);
        long ends = Long.parseLong(redis.client().get(box));
        assertThat(redis.client().pttl(box)).as("the box expires with the penalty").isBetween(1L, 5000L);
        assertThat(ends - redisMicros()).as("5 s of penalty, by Redis' clock").isBetween(4_000_000L, 5_000_000L);

        int[] refused = new int[2];
        int[] admittedAfter = new int[2];
        long deadline = ends + 2_000_000L;
        int i = 0;
        while (admittedAfter[0] == 0 || admittedAfter[1] == 0) {
            int server = i++ % 2;
            HttpResponse<String> answer = Http.get(servers[server]);
            long answeredAt = redisMicros();
            assertThat(answeredAt).as("both servers admit the client within 2 s of the penalty's end").isLessThan(deadline);
            if (answer.statusCode() == 200) {
                assertThat(answeredAt).as("no admission before the penalty's end, by Redis' clock").isGreaterThanOrEqualTo(ends);
                admittedAfter[server]++;
            } else {
                assertThat(answer.statusCode()).isEqualTo(429);
                long retryAfter = Long.parseLong(answer.headers().firstValue("Retry-After").orElseThrow());
                assertThat(retryAfter).as("the penalty left, in whole seconds").isBetween(1L, 5L);
                if (answeredAt < ends) {
                    refused[server]++;
                }
                Thread.sleep(50);
            }
        }
        assertThat(refused[0]).as("refused on Tomcat during the penalty").isPositive();
        assertThat(refused[1]).as("refused on Jetty during the penalty").isPositive();
        assertThat(redis.client().get(box)).as("knocking did not extend the box").isNull();
    }

    @Test
    void operatorsSeeTheBoxOnTheStatusPageAndOverJmxAndAResetEmptiesIt() throws Exception {
        String prefix = redis.keyPrefix() + "ops:";
        Map<String, String> params = FilterParams.of(redis, "limit", "2", "window", "1m", "penalty", "1h",
                "keyPrefix", prefix, "policyName", "boxed");
        URI tomcat = containers.get(Kind.TOMCAT).deploy(AppDescriptor.builder("/ops-t").filter("boxed", FILTER, params, "/work")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status").build());
        URI jetty = deploy(Kind.JETTY, "/ops-j", params);
        for (int i = 0; i < 2; i++) {
            assertThat(Http.get(tomcat.resolve("/ops-t/work")).statusCode()).isEqualTo(200);
        }
        assertThat(Http.get(tomcat.resolve("/ops-t/work")).statusCode()).isEqualTo(429);
        assertThat(Http.get(jetty).statusCode()).as("boxed on the other node").isEqualTo(429);
        String box = onlyBox(prefix);
        String ends = redis.client().get(box);

        String json = Http.get(tomcat.resolve("/ops-t/status?format=json&client=127.0.0.1")).body();
        assertThat(json).contains("\"penalty\":3600").contains("\"penalties\":1").contains("\"penaltyDenials\":1");
        assertThat(Http.get(tomcat.resolve("/ops-t/status?client=127.0.0.1")).body())
                .contains("denied: in the penalty box for 3600 s");
        ObjectName tomcatBean = RateLimiterJmx.name("/ops-t", "boxed", 1);
        ObjectName jettyBean = RateLimiterJmx.name("/ops-j", "boxed", 1);
        assertThat(String.valueOf(server.invoke(jettyBean, "peekClient", new Object[] {"127.0.0.1"},
                new String[] {String.class.getName()}))).startsWith("boxed: denied: in the penalty box, 0 of 2 left");
        assertThat((Long) server.getAttribute(jettyBean, "PenaltyDenials")).isEqualTo(1);
        assertThat((Long) server.getAttribute(jettyBean, "Penalties")).as("Tomcat boxed the client").isZero();
        assertThat((Long) server.getAttribute(tomcatBean, "Penalties")).isEqualTo(1);
        assertThat(redis.client().get(box)).as("looking the client up wrote nothing").isEqualTo(ends);

        server.invoke(tomcatBean, "resetClient", new Object[] {"127.0.0.1"}, new String[] {String.class.getName()});
        assertThat(redis.client().exists(box)).as("the reset emptied the box").isFalse();
        assertThat(Http.get(tomcat.resolve("/ops-t/work")).statusCode()).as("admitted at once where reset").isEqualTo(200);
    }

    @Test
    void theConfigurationPagesLinesBoxAClientForFifteenMinutes() throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml penalty box");
        assertThat(params).containsEntry("penalty", "15m").containsEntry("limit", "30");
        String prefix = redis.keyPrefix() + "docs:";
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", prefix);
        URI app = containers.get(Kind.TOMCAT).deploy(AppDescriptor.builder("/search")
                .filter("search", FILTER, params, "/*").build()).resolve("/search/work");
        for (int i = 0; i < 30; i++) {
            assertThat(Http.get(app).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> boxed = Http.get(app);
        assertThat(boxed.statusCode()).isEqualTo(429);
        assertThat(boxed.headers().firstValue("Retry-After")).as("15 minutes").hasValue("900");
        assertThat(boxed.headers().firstValue("RateLimit")).as("t is the penalty left, the Retry-After value")
                .hasValue("\"search\";r=0;t=900");
        assertThat(boxed.body()).as("the draft's problem type for a client refused for its pattern of requests")
                .startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types#abnormal-usage-detected\","
                        + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Policy 'search' allows 30 "
                        + "requests per 1m and refuses a client that goes over it for 15m. Try again in 900 seconds.\","
                        + "\"violated-policies\":[\"search\"],")
                .contains("\"retryAfter\":900");
        HttpResponse<String> inTheBox = Http.get(app);
        assertThat(inTheBox.body()).as("refused in the box: the same type")
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#abnormal-usage-detected\"");
        assertThat(redis.client().pttl(onlyBox(prefix))).isBetween(890_000L, 900_000L);
    }
}
