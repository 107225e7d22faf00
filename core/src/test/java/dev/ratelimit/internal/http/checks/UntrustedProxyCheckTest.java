package dev.ratelimit.internal.http.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ratelimit.CapturedErr;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.client.ProxyHeader;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code UNTRUSTED_PROXY} on a manual clock: one address that forwards for many clients and
 * carries most of the traffic without being trusted is named once in the log and on the page
 * until five minutes pass without it; a trusted proxy, a busy client without the header, a
 * minority, a policy that never reads the address, hostile headers and a million clients are not
 * named, and leave the check as small as they found it.
 */
class UntrustedProxyCheckTest {
    private static final String PROXY = "127.0.0.1";
    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private CapturedErr err;

    @BeforeEach
    void captureLog() {
        err = new CapturedErr();
    }

    @AfterEach
    void restoreLog() {
        err.close();
    }

    /** The library's lines only: other tests' threads write to the process's stderr too. */
    private String logged() {
        return err.text();
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    private TrafficChecks checks(TrustedProxies proxies) {
        return new TrafficChecks("api", proxies, true, now::get);
    }

    /** Request {@code i} a proxy forwards: 50 clients in turn. */
    private static FakeRequest forwarded(String proxy, int i) {
        return new FakeRequest().from(proxy).header("X-Forwarded-For", "198.51.100." + (i % 50 + 1));
    }

    private static void send(TrafficChecks checks, int requests, IntFunction<FakeRequest> request) {
        for (int i = 0; i < requests; i++) {
            checks.observe(request.apply(i));
        }
    }

    @Test
    void aProxyCarryingMostTrafficIsNamedOnceAndForgottenFiveMinutesAfterItsLastRequest() {
        TrafficChecks checks = checks(TrustedProxies.none());

        send(checks, 60, i -> forwarded(PROXY, i));

        assertThat(checks.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.code()).isEqualTo("UNTRUSTED_PROXY");
            assertThat(warning.text()).contains("from 127.0.0.1 with an X-Forwarded-For header")
                    .contains("not in trustedProxies").contains("trustedProxies=127.0.0.1;")
                    .doesNotContain("198.51.100");
            assertThat(warning.requests()).isBetween(36L, 60L);
        });
        assertThat(count(logged(), "[UNTRUSTED_PROXY]")).isEqualTo(1);
        assertThat(logged()).contains("WARN").contains("Rate limit policy 'api' [UNTRUSTED_PROXY]: most requests come "
                + "from 127.0.0.1 with an X-Forwarded-For header, but 127.0.0.1 is not in trustedProxies")
                .contains("set init-param 'trustedProxies' to include it: trustedProxies=127.0.0.1;")
                .contains("Logged once").doesNotContain("198.51.100");

        now.addAndGet(4 * MINUTE);
        checks.observe(forwarded(PROXY, 60));
        now.addAndGet(5 * MINUTE);
        assertThat(checks.warnings()).as("five minutes after its last request").hasSize(1);
        now.incrementAndGet();
        assertThat(checks.warnings()).as("then no longer").isEmpty();

        send(checks, 60, i -> forwarded(PROXY, i));
        assertThat(checks.warnings()).as("back with the traffic").hasSize(1);
        assertThat(count(logged(), "[UNTRUSTED_PROXY]")).as("logged once for the policy's life").isEqualTo(1);
    }

    @Test
    void trafficThatStopsBeingMostlyTheProxysIsForgottenFiveMinutesLater() {
        TrafficChecks checks = checks(TrustedProxies.none());
        send(checks, 60, i -> forwarded(PROXY, i));
        assertThat(checks.warnings()).hasSize(1);

        // A tenth of the traffic still comes through it, the rest straight from clients.
        send(checks, 10_000, i -> i % 10 == 0 ? forwarded(PROXY, i) : new FakeRequest().from("203.0.113." + i % 200));
        now.addAndGet(5 * MINUTE + 1);

        assertThat(checks.warnings()).isEmpty();
    }

    @Test
    void aTrustedProxyIsNotNamed() {
        TrafficChecks checks = checks(TrustedProxies.parse("127.0.0.1"));

        send(checks, 1_000, i -> forwarded(PROXY, i));

        assertThat(checks.warnings()).isEmpty();
        assertThat(logged()).doesNotContain("UNTRUSTED_PROXY");
    }

    @Test
    void aBusyClientWithoutAForwardingHeaderIsNotNamed() {
        TrafficChecks checks = checks(TrustedProxies.none());

        send(checks, 10_000, i -> new FakeRequest().from("203.0.113.9"));
        send(checks, 10_000, i -> new FakeRequest().from("203.0.113.9").header("X-Forwarded-For", ""));

        assertThat(checks.warnings()).isEmpty();
        assertThat(logged()).doesNotContain("UNTRUSTED_PROXY");
    }

    @Test
    void aClientThatAlwaysSendsTheSameHeaderIsOneClientNotAProxy() {
        TrafficChecks checks = checks(TrustedProxies.none());

        send(checks, 10_000, i -> new FakeRequest().from("203.0.113.9").header("X-Forwarded-For", "10.1.2.3"));

        assertThat(checks.warnings()).isEmpty();
    }

    @Test
    void aMinorityOfRequestsWithTheHeaderIsNotNamed() {
        TrafficChecks checks = checks(TrustedProxies.none());

        // Two in five through the proxy, spread; then half of them, alternating; then a quarter in blocks of ten.
        send(checks, 10_000, i -> i % 5 < 2 ? forwarded(PROXY, i) : new FakeRequest().from("203.0.113." + i % 7));
        send(checks, 10_000, i -> i % 2 == 0 ? forwarded(PROXY, i) : new FakeRequest().from("203.0.113." + i % 7));
        send(checks, 10_000, i -> i % 40 < 10 ? forwarded(PROXY, i) : new FakeRequest().from("203.0.113." + i % 7));
        // Many proxies, each a small share.
        send(checks, 10_000, i -> forwarded("192.0.2." + i % 3, i));

        assertThat(checks.warnings()).isEmpty();
        assertThat(logged()).doesNotContain("UNTRUSTED_PROXY");
    }

    @ParameterizedTest(name = "{0}={1} warns: {4}")
    @CsvSource(delimiter = '|', value = {
        "key|ip|limit|10|true",
        "key|user|limit|10|false",
        "key|header:X-Api-Key|limit|10|false",
        "key|global|limit|10|false",
        "key|ip+header:X-Api-Key|limit|10|true",
        "key|user|exemptAddresses|192.0.2.0/24|true",
        "limits|100 per 1m by user; 1000 per 1m by global|algorithm|fixed-window|false",
        "limits|100 per 1m by user; 10 per 1s by ip|algorithm|fixed-window|true",
    })
    void onlyAPolicyThatReadsTheAddressLooksForTheProxy(String name, String value, String name2, String value2,
            boolean warns) {
        Map<String, String> settings = new HashMap<>(Map.of(name, value, name2, value2));
        if (!settings.containsKey("limits")) {
            settings.putIfAbsent("limit", "10");
            settings.put("window", "1m");
        }
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(settings);
        TrafficChecks checks = new TrafficChecks(policy.policyName(), policy.requests().trustedProxies(),
                policy.requests().readsClientAddress(), now::get);

        send(checks, 100, i -> forwarded(PROXY, i));

        assertThat(checks.warnings()).hasSize(warns ? 1 : 0);
        assertThat(logged().contains("[UNTRUSTED_PROXY]")).isEqualTo(warns);
    }

    @Test
    void aTrustedProxyWritingOnlyTheOtherHeaderNamesForwardedHeader() {
        TrafficChecks checks = checks(TrustedProxies.parse("10.0.0.0/8"));

        send(checks, 60, i -> new FakeRequest().from("10.0.0.5").header("Forwarded", "for=198.51.100." + (i % 50 + 1)));

        assertThat(checks.warnings()).singleElement().satisfies(warning -> assertThat(warning.text())
                .contains("from the trusted proxy 10.0.0.5 with a Forwarded header only")
                .contains("forwardedHeader is X-Forwarded-For").contains("forwardedHeader=Forwarded."));
        assertThat(logged()).contains("[UNTRUSTED_PROXY]").contains("set init-param 'forwardedHeader'");

        TrafficChecks right = checks(TrustedProxies.parse("10.0.0.0/8").withHeader(ProxyHeader.FORWARDED));
        send(right, 1_000, i -> new FakeRequest().from("10.0.0.5").header("Forwarded", "for=198.51.100." + (i % 50 + 1))
                .header("X-Forwarded-For", "198.51.100.1"));
        assertThat(right.warnings()).isEmpty();
    }

    @Test
    void anUntrustedPeerWritingTheOtherHeaderNamesBothSettings() {
        TrafficChecks checks = checks(TrustedProxies.none());

        send(checks, 60, i -> new FakeRequest().from(PROXY).header("Forwarded", "for=198.51.100." + (i % 50 + 1)));

        assertThat(checks.warnings()).singleElement().satisfies(warning -> assertThat(warning.text())
                .contains("with a Forwarded header")
                .contains("trustedProxies=127.0.0.1 and forwardedHeader=Forwarded"));
    }

    @Test
    void aSecondProxyLayerThatIsNotTrustedIsNamed() {
        TrafficChecks checks = checks(TrustedProxies.parse("10.0.0.0/8"));
        IntFunction<FakeRequest> throughTwo = i -> new FakeRequest().from("10.0.0." + (i % 3 + 5))
                .header("X-Forwarded-For", "198.51.100." + (i % 50 + 1) + ", 203.0.113.50");

        send(checks, 60, throughTwo);

        assertThat(checks.warnings()).singleElement().satisfies(warning -> assertThat(warning.text())
                .contains("from 203.0.113.50, which is not in trustedProxies but forwarded them for others")
                .contains("trustedProxies=10.0.0.0/8, 203.0.113.50;"));

        TrafficChecks bothTrusted = checks(TrustedProxies.parse("10.0.0.0/8, 203.0.113.50"));
        send(bothTrusted, 1_000, throughTwo);
        TrafficChecks oneLayer = checks(TrustedProxies.parse("10.0.0.0/8"));
        send(oneLayer, 1_000, i -> new FakeRequest().from("10.0.0.5")
                .header("X-Forwarded-For", "198.51.100." + i % 50));
        assertThat(bothTrusted.warnings()).isEmpty();
        assertThat(oneLayer.warnings()).isEmpty();
    }

    @Test
    void hostileHeadersNeverThrowNeverReachTheLogAndNameNoOneWhoCannotBeTrusted() {
        // Larger than any container lets through (Tomcat and Jetty stop at 8 KB unless told otherwise).
        String huge = "1.2.3.4, ".repeat(10_000);
        List<TrafficChecks> all = List.of(checks(TrustedProxies.none()), checks(TrustedProxies.parse("127.0.0.0/8")),
                checks(TrustedProxies.parse("127.0.0.0/8").withHeader(ProxyHeader.FORWARDED)));
        List<Consumer<FakeRequest>> hostile = List.of(
            r -> r.header("X-Forwarded-For", huge + "x"),
            r -> r.header("Forwarded", "for=\"" + huge),
            r -> r.header("X-Forwarded-For", "\r\n[UNTRUSTED_PROXY] forged\u0000\uffff, ,,,[::1"),
            r -> r.header("Forwarded", "for=_hidden, for=unknown;;by=\"\\"),
            r -> r.header("X-Forwarded-For", null),
            r -> r.header("Forwarded", "for=\"[2001:db8::1]:99999\"").header("X-Forwarded-For", "forged-text"));
        for (TrafficChecks checks : all) {
            for (int i = 0; i < 1_200; i++) {
                FakeRequest request = new FakeRequest().from(i % 7 == 0 ? null : PROXY);
                hostile.get(i % hostile.size()).accept(request);
                assertThatCode(() -> checks.observe(request)).doesNotThrowAnyException();
            }
            assertThatCode(checks::warnings).doesNotThrowAnyException();
        }
        assertThat(logged()).doesNotContain("forged").doesNotContain("1.2.3.4").doesNotContain("\u0000");
        for (ConfigWarning warning : all.get(0).warnings()) {
            assertThat(warning.text()).doesNotContain("forged").doesNotContain("1.2.3.4");
        }

        // A peer that is no address (the container's own text) cannot be put in trustedProxies: not named.
        TrafficChecks socket = checks(TrustedProxies.none());
        send(socket, 1_000, i -> forwarded("unix:/run/app.sock\r\nforged", i));
        assertThat(socket.warnings()).isEmpty();
        assertThat(logged()).doesNotContain("forged");
    }

    @Test
    void aMillionClientsLeaveTheCheckAsSmallAsOneDid() throws Exception {
        TrafficChecks untrusted = checks(TrustedProxies.none());
        TrafficChecks trusted = checks(TrustedProxies.parse("10.0.0.0/8"));
        send(untrusted, 16, i -> forwarded("192.0.2.1", i));
        send(trusted, 16, i -> new FakeRequest().from("10.0.0.1").header("X-Forwarded-For", "198.51.100.1, 192.0.2.1"));
        long[] before = {footprint(untrusted), footprint(trusted)};

        for (int i = 0; i < 1_000_000; i++) {
            String address = (i >>> 16 & 0xff) + "." + (i >>> 8 & 0xff) + "." + (i & 0xff) + ".1";
            untrusted.observe(new FakeRequest().from(address).header("X-Forwarded-For", "198.51.100." + i % 250));
            trusted.observe(new FakeRequest().from("10.0.0." + i % 250).header("X-Forwarded-For", address + ", 192.0.2."
                    + i % 250));
        }

        assertThat(untrusted.warnings()).isEmpty();
        assertThat(trusted.warnings()).isEmpty();
        assertThat(footprint(untrusted)).as("state after a million clients").isLessThanOrEqualTo(before[0] + 32);
        assertThat(footprint(trusted)).isLessThanOrEqualTo(before[1] + 32);
    }

    /**
     * What the object holds, reached through its fields: one per object, plus the length of each
     * string, array, collection or map. A field per client, or a growing table, shows as growth.
     */
    private static long footprint(Object root) throws IllegalAccessException {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Object> open = new ArrayDeque<>(List.of(root));
        long size = 0;
        while (!open.isEmpty()) {
            Object object = open.pop();
            if (!seen.add(object)) {
                continue;
            }
            size++;
            if (object instanceof CharSequence) {
                size += ((CharSequence) object).length();
            } else if (object instanceof Collection) {
                size += ((Collection<?>) object).size();
            } else if (object instanceof Map) {
                size += ((Map<?, ?>) object).size();
            } else if (object.getClass().isArray()) {
                size += Array.getLength(object);
            } else if (object.getClass().getName().startsWith("dev.ratelimit.")) {
                for (Class<?> type = object.getClass(); type.getName().startsWith("dev.ratelimit.");
                        type = type.getSuperclass()) {
                    for (Field field : type.getDeclaredFields()) {
                        if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
                            continue;
                        }
                        field.setAccessible(true);
                        Object value = field.get(object);
                        if (value != null) {
                            open.push(value);
                        }
                    }
                }
            }
        }
        return size;
    }
}
