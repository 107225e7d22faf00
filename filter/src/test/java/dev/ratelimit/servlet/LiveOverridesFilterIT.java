package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A live change across two nodes sharing Redis, a Tomcat and a Jetty in this JVM: an override set
 * on one node's JMX bean is enforced by both within 5 seconds, cleared on both, picked up by a
 * redeployed node, and a bad value is refused with web.xml's message.
 */
class LiveOverridesFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(5);

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI deploy(Kind kind, String path) throws Exception {
        Map<String, String> params = FilterParams.of(redis, "limit", "10", "window", "1m", "policyName", "live",
                "key", "header:X-Client", "localDenyCache", "false", "keyPrefix", redis.keyPrefix());
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("live", RateLimitFilter.class.getName(),
                params, "/*").build());
    }

    /** How many of 15 requests of a new client the node admits. */
    private static int admitted(URI node, String client) {
        int admitted = 0;
        for (int i = 0; i < 15; i++) {
            admitted += Http.get(node, "X-Client", client).statusCode() == 200 ? 1 : 0;
        }
        return admitted;
    }

    /** Polls with fresh clients until the node admits {@code expected}, within 5 s; answers the time taken. */
    private static long untilAdmits(URI node, int expected, String client) throws InterruptedException {
        long start = System.nanoTime();
        for (int round = 0; ; round++) {
            int admitted = admitted(node, client + "-" + round);
            if (admitted == expected) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }
            assertThat(System.nanoTime() - start).as("admitted %d, not %d, after 5 s", admitted, expected)
                    .isLessThan(DEADLINE_NANOS);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    @Test
    void anOverrideSetThroughOneNodesBeanIsEnforcedByBothAndClearedOnBoth() throws Exception {
        URI tomcat = deploy(Kind.TOMCAT, "/live-t");
        URI jetty = deploy(Kind.JETTY, "/live-j");
        ObjectName tomcatBean = RateLimiterJmx.name("/live-t", "live", 1);
        ObjectName jettyBean = RateLimiterJmx.name("/live-j", "live", 1);
        assertThat(admitted(tomcat, "t0")).as("configured").isEqualTo(10);
        assertThat(admitted(jetty, "j0")).as("configured").isEqualTo(10);

        server.setAttribute(tomcatBean, new Attribute("LimitOverride", 3L));
        assertThat(admitted(tomcat, "t1")).as("the node that set it, at once").isEqualTo(3);
        long jettyMillis = untilAdmits(jetty, 3, "j1");
        assertThat(server.getAttribute(jettyBean, "LimitOverride")).isEqualTo(3L);
        assertThat(server.getAttribute(jettyBean, "EffectiveLimit")).isEqualTo(3L);
        assertThat((String) server.getAttribute(jettyBean, "OverrideOrigin")).startsWith("JMX on ");
        assertThat(jettyMillis).as("within the refresh interval and a poll").isLessThan(5000);

        server.setAttribute(jettyBean, new Attribute("EnforceOverride", false));
        assertThat(admitted(jetty, "j2")).as("a dry run, at once on the node that set it").isEqualTo(15);
        untilAdmits(tomcat, 15, "t2");
        assertThat(server.getAttribute(tomcatBean, "EffectiveEnforce")).isEqualTo(false);

        // A restarted node reads the overrides with its first request.
        containers.get(Kind.JETTY).undeploy("/live-j");
        URI redeployed = deploy(Kind.JETTY, "/live-j");
        assertThat(admitted(redeployed, "j3")).as("dry run after the redeploy").isEqualTo(15);
        assertThat(server.getAttribute(jettyBean, "LimitOverride")).isEqualTo(3L);
        server.setAttribute(jettyBean, new Attribute("EnforceOverride", true));
        assertThat(admitted(redeployed, "j4")).as("the limit override, after the redeploy").isEqualTo(3);

        server.invoke(tomcatBean, "clearOverrides", new Object[0], new String[0]);
        assertThat(admitted(tomcat, "t3")).as("cleared, at once").isEqualTo(10);
        untilAdmits(redeployed, 10, "j5");
        assertThat(server.getAttribute(jettyBean, "LimitOverride")).isEqualTo(-1L);
        assertThat(server.getAttribute(jettyBean, "EnforceOverride")).isNull();
        assertThat(server.getAttribute(jettyBean, "OverrideOrigin")).isEqualTo("");

        assertThatThrownBy(() -> server.setAttribute(tomcatBean, new Attribute("LimitOverride", 0L)))
                .isInstanceOf(RuntimeMBeanException.class).cause()
                .hasMessage("limit must be a whole number of at least 1, such as 100, but was '0'");
        assertThat(admitted(tomcat, "t4")).as("nothing changed").isEqualTo(10);
        containers.get(Kind.TOMCAT).undeploy("/live-t");
        containers.get(Kind.JETTY).undeploy("/live-j");
    }
}
