package dev.ratelimit.internal.http.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.testing.RedisClusterExtension;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A policy's lifecycle on a real Redis Cluster: what start takes (a share of the webapp's client,
 * a JMX bean) close gives back, and a start that fails half-way leaves nothing behind.
 */
class PolicyRuntimeIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final String WEBAPP = "/policy-runtime-it";

    private final RedisStoreRegistry registry = new RedisStoreRegistry();

    private static HttpPolicy policy(String name, String... pairs) {
        Map<String, String> settings = new HashMap<>(Map.of("limit", "3", "window", "1m", "algorithm", "fixed-window",
                "redisClusterNodes", cluster.seedNodes(), "redisTimeout", "2s", "keyPrefix", cluster.keyPrefix()));
        for (int i = 0; i < pairs.length; i += 2) {
            settings.put(pairs[i], pairs[i + 1]);
        }
        return HttpPolicy.parser("init-param '%s'").defaultPolicyName(name, "the filter-name").parse(settings);
    }

    private static boolean beanOf(String policyName) {
        return JMX.isRegistered(RateLimiterJmx.name(WEBAPP, policyName, 1));
    }

    @Test
    void whatStartTakesCloseGivesBack() {
        HttpPolicy policy = policy("orders");
        PolicyRuntime orders = PolicyRuntime.start(policy, registry, WEBAPP);
        PolicyRuntime search = PolicyRuntime.start(policy("search"), registry, WEBAPP);

        assertThat(registry.users(policy.redisSettings())).as("both share one client").isEqualTo(2);
        assertThat(beanOf("orders")).isTrue();
        assertThat(orders.limiter().tryAcquire("client").allowed()).isTrue();

        orders.close();
        orders.close();
        assertThat(beanOf("orders")).isFalse();
        assertThat(registry.users(policy.redisSettings())).as("closing twice gives back once").isEqualTo(1);
        assertThat(search.limiter().tryAcquire("client").allowed()).as("the other policy's client stays open")
                .isTrue();

        search.close();
        assertThat(registry.users(policy.redisSettings())).isZero();
        assertThat(beanOf("search")).isFalse();
    }

    @Test
    void twoWebappsWithOneContextPathEachStopOnlyTheirOwnPolicies() {
        // Tomcat's parallel deployment (app##1, app##2) and virtual hosts run two webapps under one path.
        Map<String, Object> oldVersion = new HashMap<>();
        Map<String, Object> newVersion = new HashMap<>();
        Webapp old = Webapp.of("/shop", java.util.Collections.emptyList(), name -> null, oldVersion::get,
                oldVersion::put, path -> null);
        Webapp current = Webapp.of("/shop", java.util.Collections.emptyList(), name -> null, newVersion::get,
                newVersion::put, path -> null);
        PolicyRuntime oldOrders = old.start(policy("orders"));
        PolicyRuntime newOrders = current.start(policy("orders"));
        assertThat(JMX.isRegistered(RateLimiterJmx.name("/shop", "orders", 1))).isTrue();
        assertThat(JMX.isRegistered(RateLimiterJmx.name("/shop", "orders", 2))).as("the second one's bean").isTrue();

        Webapp.stop(oldVersion::get);

        assertThat(JMX.isRegistered(RateLimiterJmx.name("/shop", "orders", 1))).as("the old version's bean").isFalse();
        assertThat(JMX.isRegistered(RateLimiterJmx.name("/shop", "orders", 2))).as("the running version's bean")
                .isTrue();
        assertThat(newOrders.limiter().tryAcquire("client").allowed()).as("and its Redis client").isTrue();
        RedisStoreRegistry oldClients = (RedisStoreRegistry) oldVersion.get(RedisStoreRegistry.CONTEXT_ATTRIBUTE);
        assertThat(oldClients.users(oldOrders.policy().redisSettings())).as("the old one's client is given back")
                .isZero();

        Webapp.stop(newVersion::get);
        assertThat(JMX.isRegistered(RateLimiterJmx.name("/shop", "orders", 2))).isFalse();
    }

    @Test
    void aStartThatFailsHalfWayLeavesNoClientAndNoBean() {
        HttpPolicy transactional = policy("tx", "transport", "transaction");

        assertThatThrownBy(() -> PolicyRuntime.start(transactional, registry, WEBAPP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transport 'transaction' is not available on Redis Cluster");

        assertThat(registry.users(transactional.redisSettings())).isZero();
        assertThat(beanOf("tx")).isFalse();
    }

    @Test
    void withJmxOffNoBeanIsPublished() {
        try (PolicyRuntime quiet = PolicyRuntime.start(policy("quiet", "jmx", "false"), registry, WEBAPP)) {
            assertThat(beanOf("quiet")).isFalse();
            assertThat(quiet.pipeline().policy().policyName()).isEqualTo("quiet");
        }
    }
}
