package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each filter's counters as a platform MXBean while traffic flows, and none left after undeploy. */
class RateLimitFilterJmxIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static Object attribute(ObjectName name, String attribute) throws Exception {
        return server.getAttribute(name, attribute);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theCountersMatchTheTrafficAndTheBeanGoesWithTheWebapp(Kind kind) throws Exception {
        String path = "/jmx" + apps.incrementAndGet();
        Map<String, String> params = FilterParams.of(redis, "limit", "5", "window", "1m", "policyName", "orders",
                "keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path).filter("orders", RateLimitFilter.class.getName(),
                params, "/*").build());
        ObjectName name = RateLimiterJmx.name(path, "orders", 1);
        assertThat(server.isRegistered(name)).as(name.toString()).isTrue();

        for (int i = 0; i < 8; i++) {
            Http.get(app);
        }

        assertThat(attribute(name, "Allowed")).isEqualTo(5L);
        assertThat(attribute(name, "Denied")).isEqualTo(3L);
        assertThat(attribute(name, "LocalCacheDenials")).as("the 7th and 8th were remembered").isEqualTo(2L);
        assertThat(attribute(name, "Degraded")).isEqualTo(0L);
        assertThat(attribute(name, "LeaseAdmissions")).as("leases are off").isEqualTo(0L);
        assertThat(attribute(name, "RedisErrors")).isEqualTo(0L);
        assertThat((Long) attribute(name, "RedisLatencyP50Micros")).isPositive();
        long p50 = (Long) attribute(name, "RedisLatencyP50Micros");
        long p90 = (Long) attribute(name, "RedisLatencyP90Micros");
        long p99 = (Long) attribute(name, "RedisLatencyP99Micros");
        long max = (Long) attribute(name, "RedisLatencyMaxMicros");
        assertThat(p90).isGreaterThanOrEqualTo(p50);
        assertThat(p99).isGreaterThanOrEqualTo(p90);
        assertThat(max).isGreaterThanOrEqualTo(p99);
        assertThat(attribute(name, "CircuitBreakerState")).isEqualTo("CLOSED");
        assertThat((String) attribute(name, "Configuration")).startsWith("policy 'orders': sliding-log 5 per 1m")
                .doesNotContain("password");

        containers.get(kind).undeploy(path);

        assertThat(server.queryNames(new ObjectName("dev.ratelimit:type=RateLimiter,webapp="
                + ObjectName.quote(path) + ",*"), null)).as("no bean of ours after undeploy").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aBusyClientsAdmissionsFromQuotaLeasesAreCountedApart(Kind kind) throws Exception {
        String path = "/leasing" + apps.incrementAndGet();
        Map<String, String> params = FilterParams.of(redis, "limit", "1000", "window", "1h", "algorithm", "gcra",
                "leases", "true", "policyName", "busy", "keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path).filter("busy", RateLimitFilter.class.getName(),
                params, "/*").build());
        ObjectName name = RateLimiterJmx.name(path, "busy", 1);

        for (int i = 0; i < 40; i++) {
            assertThat(Http.get(app).statusCode()).isEqualTo(200);
        }

        assertThat(attribute(name, "Allowed")).isEqualTo(40L);
        assertThat((Long) attribute(name, "LeaseAdmissions")).as("most of a busy client's requests")
                .isBetween(20L, 39L);
        containers.get(kind).undeploy(path);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void jmxFalsePublishesNothing(Kind kind) throws Exception {
        String path = "/nojmx" + apps.incrementAndGet();
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path).filter("quiet", RateLimitFilter.class.getName(),
                FilterParams.of(redis, "limit", "5", "window", "1m", "jmx", "false"), "/*").build());
        Http.get(app);
        assertThat(server.queryNames(new ObjectName("dev.ratelimit:type=RateLimiter,webapp="
                + ObjectName.quote(path) + ",*"), null)).isEmpty();
    }
}
