package dev.ratelimit.internal.http.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.CapturedErr;
import dev.ratelimit.Decision;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXPrincipal;
import javax.management.remote.JMXServiceURL;
import javax.security.auth.Subject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An operator finds one client by what it sends, sees its state without consuming, and unlocks
 * it, from code and over JMX: keyed as the policy keys requests (IPv6 networks, digests of secret
 * parts, tiers, {@code limits} dimensions), the value never in a log line or an error.
 */
class OneClientIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final String WEBAPP = "/one-client-it";
    private static final String API_KEY = "sk-live-0123456789secret";

    private final RedisStoreRegistry registry = new RedisStoreRegistry();
    private final List<PolicyRuntime> runtimes = new ArrayList<>();

    @AfterEach
    void close() {
        runtimes.forEach(PolicyRuntime::close);
    }

    private PolicyRuntime start(String name, String... pairs) {
        Map<String, String> settings = new HashMap<>(Map.of("redisUri", redis.uri(), "keyPrefix", redis.key(name + ":")));
        if (!List.of(pairs).contains("limits")) {
            settings.put("limit", "2");
            settings.put("window", "1m");
        }
        for (int i = 0; i < pairs.length; i += 2) {
            settings.put(pairs[i], pairs[i + 1]);
        }
        PolicyRuntime runtime = PolicyRuntime.start(HttpPolicy.parser("init-param '%s'")
                .defaultPolicyName(name, "the filter-name").parse(settings), registry, WEBAPP);
        runtimes.add(runtime);
        return runtime;
    }

    /** A new request each time: the pipeline decides a request only once. */
    private static boolean admitted(PolicyRuntime runtime, Supplier<FakeRequest> request) {
        return !runtime.pipeline().before(request.get()).denied();
    }

    private static FakeRequest user(String name) {
        FakeRequest request = new FakeRequest();
        request.userName = name;
        return request;
    }

    @Test
    void anIpv6ClientLockedOutIsSeenAndUnlockedByAnotherAddressOfItsNetwork() {
        PolicyRuntime api = start("v6", "jmx", "false");
        Supplier<FakeRequest> client = () -> new FakeRequest().from("2001:db8:7:7::1");
        Supplier<FakeRequest> other = () -> new FakeRequest().from("2001:db8:7:8::1");
        assertThat(admitted(api, client)).isTrue();
        assertThat(admitted(api, client)).isTrue();
        assertThat(admitted(api, client)).isFalse();
        assertThat(admitted(api, other)).isTrue();

        assertThat(api.oneClient().peek("2001:db8:7:7:ffff::9")).hasEntrySatisfying("v6", state -> {
            assertThat(state.allowed()).isFalse();
            assertThat(state.remaining()).isZero();
            assertThat(state.retryAfterSeconds()).isBetween(1L, 60L);
        });
        assertThat(api.oneClient().reset("2001:db8:7:7:ffff::9", "test")).containsExactly("v6");

        assertThat(api.oneClient().peek("2001:db8:7:7::1").get("v6").remaining()).as("read, not taken").isEqualTo(2);
        assertThat(admitted(api, client)).as("unlocked, the local deny cache too").isTrue();
        assertThat(admitted(api, other)).isTrue();
        assertThat(admitted(api, other)).as("another network keeps its count").isFalse();
    }

    @Test
    void anApiKeyClientIsFoundByItsKeyWhichNeverAppearsInALogOrAnError() throws Exception {
        PolicyRuntime api = start("keys", "key", "header:X-Api-Key", "tiers", "partner:3", "tierFrom", "header:X-Tier");
        Supplier<FakeRequest> plain = () -> new FakeRequest().header("X-Api-Key", API_KEY);
        Supplier<FakeRequest> partner = () -> new FakeRequest().header("X-Api-Key", API_KEY).header("X-Tier", "partner");
        for (int i = 0; i < 2; i++) {
            assertThat(admitted(api, plain)).isTrue();
        }
        for (int i = 0; i < 3; i++) {
            assertThat(admitted(api, partner)).isTrue();
        }
        assertThat(admitted(api, plain)).isFalse();
        assertThat(admitted(api, partner)).isFalse();

        ObjectName bean = RateLimiterJmx.name(WEBAPP, "keys", 1);
        String peeked;
        String reset;
        CapturedErr log = new CapturedErr();
        try {
            peeked = (String) JMX.invoke(bean, "peekClient", new Object[] {API_KEY}, new String[] {"java.lang.String"});
            reset = (String) JMX.invoke(bean, "resetClient", new Object[] {API_KEY}, new String[] {"java.lang.String"});
        } finally {
            log.close();
        }

        assertThat(peeked).startsWith("keys: denied, 0 of 2 left, retry in ").contains("; keys.partner: denied, 0 of 3 left");
        assertThat(reset).isEqualTo("reset in [keys, keys.partner]");
        String logged = log.text();
        assertThat(logged).contains("Rate limit policy 'keys': one client (key digest #").contains("by JMX on ")
                .doesNotContain(API_KEY);
        assertThat(admitted(api, plain)).isTrue();
        assertThat(admitted(api, partner)).as("every tier's limiter forgot it").isTrue();

        assertThatThrownBy(() -> JMX.invoke(bean, "resetClient", new Object[] {""}, new String[] {"java.lang.String"}))
                .isInstanceOf(RuntimeMBeanException.class).cause().isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policy 'keys' keys clients by header:X-Api-Key, and no such client sends that value");
    }

    /**
     * A client whose requests hang holds every in-flight lease until the lease timeout: a reset
     * frees them, and the hung requests' late releases take nothing from its new ones.
     */
    @Test
    void aResetFreesTheInFlightLeasesOfAClientWhoseRequestsHang() {
        PolicyRuntime exports = start("inflight", "jmx", "false", "algorithm", "concurrency", "limit", "2", "window", "2m");
        Supplier<FakeRequest> client = () -> new FakeRequest().from("198.51.100.4");
        Decision hung1 = exports.limiter().tryAcquire(exports.policy().requests().clientKeyOfValue("198.51.100.4"));
        Decision hung2 = exports.limiter().tryAcquire(exports.policy().requests().clientKeyOfValue("198.51.100.4"));
        assertThat(hung1.allowed() && hung2.allowed()).isTrue();
        assertThat(admitted(exports, client)).as("both leases held").isFalse();
        assertThat(exports.oneClient().peek("198.51.100.4").get("inflight").remaining()).isZero();

        exports.oneClient().reset("198.51.100.4", "test");

        Decision fresh = exports.limiter().tryAcquire(exports.policy().requests().clientKeyOfValue("198.51.100.4"));
        assertThat(fresh.allowed()).as("the leases are gone").isTrue();
        exports.limiter().release(hung1);
        exports.limiter().release(hung2);
        assertThat(exports.oneClient().peek("198.51.100.4").get("inflight").remaining())
                .as("the hung requests' releases did not free the new lease").isEqualTo(1);
        exports.limiter().release(fresh);
    }

    @Test
    void aResetOfOneClientLeavesTheGlobalDimensionsCount() {
        PolicyRuntime api = start("dims", "jmx", "false", "limits", "3 per 1m by global; 1 per 1m by user");
        Supplier<FakeRequest> alice = () -> user("alice");
        Supplier<FakeRequest> bob = () -> user("bob");
        assertThat(admitted(api, alice)).isTrue();
        assertThat(admitted(api, alice)).as("alice's own entry").isFalse();
        assertThat(admitted(api, bob)).isTrue();

        assertThat(api.oneClient().peek("alice").get("dims").allowed()).isFalse();
        api.oneClient().reset("alice", "test");

        assertThat(admitted(api, alice)).as("alice's entry forgot her, the global one counts her 3rd").isTrue();
        assertThat(admitted(api, bob)).as("global spent: 3 of 3, not reset").isFalse();
    }

    /**
     * Over a remote connector that authenticates its users, as operators' JMX usually does: the
     * user is named in the reset's log line and in the origin an override is stored with, a name
     * that could break a log line cut short and tamed. With Redis gone, a peek says what answers
     * instead of the client's state, and a reset fails with Redis's message, not a class a JMX
     * client may not have.
     */
    @Test
    void anAuthenticatedJmxUserIsTheOriginAndRedisGoneIsSaidPlainly() throws Exception {
        start("remote", "onRedisFailure", "deny");
        PolicyRuntime gone = start("gone", "redisUri", "redis://127.0.0.1:1", "redisTimeout", "100ms");
        JMXAuthenticator operators = credentials -> {
            String user = ((String[]) credentials)[0];
            return new Subject(true, Set.of(new JMXPrincipal(user)), Set.of(), Set.of());
        };
        JMXConnectorServer connector = JMXConnectorServerFactory.newJMXConnectorServer(
                new JMXServiceURL("service:jmx:rmi://127.0.0.1"), Map.of(JMXConnectorServer.AUTHENTICATOR, operators), JMX);
        connector.start();
        CapturedErr log;
        try (JMXConnector client = JMXConnectorFactory.connect(connector.getAddress(),
                Map.of(JMXConnector.CREDENTIALS, new String[] {"ops-alice\r\nINFO forged 'line'", "pw"}))) {
            MBeanServerConnection remote = client.getMBeanServerConnection();
            ObjectName bean = RateLimiterJmx.name(WEBAPP, "remote", 1);
            log = new CapturedErr();
            try {
                remote.invoke(bean, "resetClient", new Object[] {"203.0.113.9"}, new String[] {"java.lang.String"});
            } finally {
                log.close();
            }
            remote.setAttribute(bean, new Attribute("LimitOverride", 7L));
            assertThat((String) remote.getAttribute(bean, "OverrideOrigin"))
                    .startsWith("JMX user 'ops-alice??INFO forged ?line?' on ");
            assertThat(log.text()).contains("by JMX user 'ops-alice??INFO forged ?line?' on ")
                    .doesNotContain("203.0.113.9");

            ObjectName down = RateLimiterJmx.name(WEBAPP, "gone", 1);
            assertThat((String) remote.invoke(down, "peekClient", new Object[] {"203.0.113.9"},
                    new String[] {"java.lang.String"}))
                    .isEqualTo("gone: Redis cannot be asked, onRedisFailure answers allowed");
            assertThatThrownBy(() -> remote.invoke(down, "resetClient", new Object[] {"203.0.113.9"},
                    new String[] {"java.lang.String"}))
                    .isInstanceOf(RuntimeMBeanException.class).cause().isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:1");
            assertThat(gone.oneClient().peek("203.0.113.9").get("gone").degraded()).isTrue();
            assertThatThrownBy(() -> remote.setAttribute(down, new Attribute("LimitOverride", 7L)))
                    .as("an override Redis cannot take: the message travels, not a class the JMX client lacks")
                    .isInstanceOf(RuntimeMBeanException.class).cause().isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:1");
            assertThatThrownBy(() -> remote.invoke(down, "clearOverrides", new Object[0], new String[0]))
                    .isInstanceOf(RuntimeMBeanException.class).cause().isInstanceOf(IllegalStateException.class);
        } finally {
            connector.stop();
        }
    }
}
