package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Overrides;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Our customer is locked out", across two nodes sharing Redis, a Tomcat and a Jetty in this JVM:
 * README's login protection ({@code countStatus=401}) locks a client out on both, each node then
 * refusing it from its own deny cache; {@code resetClient} on one node's bean admits it there at
 * once and on the other within the overrides' interval (2 s), where the cache alone would have
 * refused it for the whole window.
 */
class OneClientFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    /** The stated delay, and what a busy 2-core machine may add to a request's way there and back. */
    private static final long STATED_DELAY_MILLIS = Overrides.REFRESH_INTERVAL.toMillis();
    private static final long SCHEDULING_SLACK_MILLIS = 1_500;

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** README's login protection, its Redis and key prefix this test's. */
    private static URI deploy(Kind kind, String path, String keyPrefix) throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml login protection");
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", keyPrefix);
        params.put("policyName", "login");
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("login", RateLimitFilter.class.getName(), params, "/login")
                .servlet("login", LoginServlet.class.getName(), "/login").build()).resolve(path + "/login");
    }

    private static HttpResponse<String> login(URI node, String password) {
        return Http.get(URI.create(node + "?password=" + password));
    }

    private static Object invoke(ObjectName bean, String operation, String value) throws Exception {
        return server.invoke(bean, operation, new Object[] {value}, new String[] {String.class.getName()});
    }

    @Test
    void aClientLockedOutOnTwoNodesIsResetOnOneAndAdmittedOnTheOtherWithinTheStatedDelay() throws Exception {
        String keyPrefix = redis.keyPrefix() + "locked:";
        URI tomcat = deploy(Kind.TOMCAT, "/one-t", keyPrefix);
        URI jetty = deploy(Kind.JETTY, "/one-j", keyPrefix);
        ObjectName tomcatBean = RateLimiterJmx.name("/one-t", "login", 1);
        ObjectName jettyBean = RateLimiterJmx.name("/one-j", "login", 1);
        for (int i = 0; i < 5; i++) {
            assertThat(login(i % 2 == 0 ? tomcat : jetty, "bad").statusCode()).as("failure %d counts", i).isEqualTo(401);
        }
        HttpResponse<String> lockedOut = login(jetty, "good");
        assertThat(lockedOut.statusCode()).as("locked out, even with the right password").isEqualTo(429);
        assertThat(Long.parseLong(lockedOut.headers().firstValue("Retry-After").get()))
                .as("for most of README's 15 minutes").isGreaterThan(800);
        assertThat(login(jetty, "good").statusCode()).isEqualTo(429);
        assertThat(login(tomcat, "good").statusCode()).isEqualTo(429);
        assertThat(login(tomcat, "good").statusCode()).isEqualTo(429);
        assertThat((Long) server.getAttribute(jettyBean, "LocalCacheDenials"))
                .as("Jetty refuses from its own memory, without asking Redis").isGreaterThanOrEqualTo(1);
        assertThat(String.valueOf(invoke(jettyBean, "peekClient", "127.0.0.1")))
                .as("the state in Redis, read through the other node's bean").startsWith("login: denied, 0 of 5 left");

        String answer = String.valueOf(invoke(tomcatBean, "resetClient", "127.0.0.1"));
        long resetAt = System.nanoTime();

        assertThat(answer).isEqualTo("reset in [login]");
        assertThat(login(tomcat, "good").statusCode()).as("the node that reset it, at once").isEqualTo(200);
        long waited = untilAdmitted(jetty);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resetAt);
        System.out.printf("OneClientFilterIT: Jetty admitted the reset client %d ms after the reset on Tomcat "
                + "(stated delay %d ms), after %d refusals%n", tookMillis, STATED_DELAY_MILLIS, waited);
        assertThat(tookMillis).as("admitted within the stated delay").isLessThan(STATED_DELAY_MILLIS
                + SCHEDULING_SLACK_MILLIS);
        assertThat(String.valueOf(invoke(jettyBean, "peekClient", "127.0.0.1"))).startsWith("login: allowed");
    }

    /** Logs in with the right password on the node until it is admitted; answers how often it was refused. */
    private static long untilAdmitted(URI node) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STATED_DELAY_MILLIS * 5);
        for (long refused = 0; ; refused++) {
            int status = login(node, "good").statusCode();
            if (status == 200) {
                return refused;
            }
            assertThat(status).as("refused, never failed").isEqualTo(429);
            assertThat(System.nanoTime()).as("still refused long past the stated delay").isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    @Test
    void aValueNoClientCanSendIsRefusedOverJmxWithWhy() throws Exception {
        deploy(Kind.TOMCAT, "/one-bad", redis.keyPrefix() + "bad:");
        ObjectName bean = RateLimiterJmx.name("/one-bad", "login", 1);
        for (String value : new String[] {"alice", "<script>alert(1)</script>", "10.0.0.1\r\nX-Injected: 1"}) {
            Throwable refused = catchRuntimeMBean(() -> invoke(bean, "resetClient", value));
            assertThat(refused).isInstanceOf(IllegalArgumentException.class);
            assertThat(refused.getMessage()).contains("keys clients by ip").doesNotContain(value);
        }
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static Throwable catchRuntimeMBean(Call call) throws Exception {
        try {
            call.run();
        } catch (RuntimeMBeanException e) {
            return e.getCause();
        }
        throw new AssertionError("not refused");
    }
}
