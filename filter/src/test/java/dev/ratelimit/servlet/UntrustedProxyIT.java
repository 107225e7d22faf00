package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.list;
import static dev.ratelimit.servlet.MiniJson.map;
import static dev.ratelimit.servlet.MiniJson.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code UNTRUSTED_PROXY} on each container, over real HTTP from 127.0.0.1: three policies of one
 * webapp see the same 60 requests. Forwarded for 50 clients with {@code trustedProxies} unset, the
 * policy logs one WARN naming the proxy and {@code trustedProxies}, and the status page's verdict
 * is that warning; with {@code trustedProxies=127.0.0.1}, and for a busy client that sends no
 * forwarding header, the verdict is "working" and nothing is logged.
 */
class UntrustedProxyIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String STATUS = "ratelimit-status";

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static Map<String, String> params(String policy, String... pairs) {
        String[] all = new String[pairs.length + 6];
        System.arraycopy(new String[] {"limit", "1000", "window", "1m", "policyName", policy}, 0, all, 0, 6);
        System.arraycopy(pairs, 0, all, 6, pairs.length);
        return FilterParams.of(redis, all);
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aProxyThatIsNotTrustedIsLoggedOnceAndIsThePolicysVerdict(Kind kind) throws Exception {
        int n = apps.incrementAndGet();
        String untrusted = "untrusted" + n;
        String trusted = "trusted" + n;
        String direct = "direct" + n;
        URI app = containers.get(kind).deploy(AppDescriptor.builder("/proxy" + n)
                .filter("untrusted", RateLimitFilter.class.getName(), params(untrusted), "/untrusted/*")
                .filter("trusted", RateLimitFilter.class.getName(), params(trusted, "trustedProxies", "127.0.0.1"),
                        "/trusted/*")
                .filter("direct", RateLimitFilter.class.getName(), params(direct), "/direct/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/" + STATUS)
                .build());

        String logged = CapturedLog.during(() -> {
            for (int i = 0; i < 60; i++) {
                String client = "198.51.100." + (i % 50 + 1);
                assertThat(Http.get(app.resolve("untrusted/items"), "X-Forwarded-For", client).statusCode())
                        .isEqualTo(200);
                assertThat(Http.get(app.resolve("trusted/items"), "X-Forwarded-For", client).statusCode())
                        .isEqualTo(200);
                assertThat(Http.get(app.resolve("direct/items")).statusCode()).isEqualTo(200);
            }
        });
        Map<String, Object> page = map(MiniJson.parse(Http.get(app.resolve(STATUS + "?format=json")).body()));
        containers.get(kind).undeploy("/proxy" + n);

        assertThat(count(logged, "[UNTRUSTED_PROXY]")).as(logged).isEqualTo(1);
        assertThat(logged).contains("WARN").contains("Rate limit policy '" + untrusted + "' [UNTRUSTED_PROXY]: most "
                + "requests come from 127.0.0.1 with an X-Forwarded-For header, but 127.0.0.1 is not in trustedProxies")
                .contains("set init-param 'trustedProxies' to include it: trustedProxies=127.0.0.1;")
                .doesNotContain("'" + trusted + "' [").doesNotContain("'" + direct + "' [");

        Map<String, Object> warned = policy(page, untrusted);
        assertThat(map(warned.get("verdict"))).containsEntry("level", "warning");
        assertThat((String) map(warned.get("verdict")).get("text")).startsWith("misconfigured (UNTRUSTED_PROXY): ")
                .contains("127.0.0.1 is not in trustedProxies").contains("trustedProxies=127.0.0.1");
        assertThat(list(warned.get("warnings"))).singleElement()
                .satisfies(warning -> assertThat(map(warning)).containsEntry("code", "UNTRUSTED_PROXY"));
        for (String working : List.of(trusted, direct)) {
            Map<String, Object> policy = policy(page, working);
            assertThat(map(policy.get("verdict"))).as(working).containsEntry("level", "ok");
            assertThat((String) map(policy.get("verdict")).get("text")).as(working).startsWith("working: ");
            assertThat(list(policy.get("warnings"))).as(working).isEmpty();
        }
    }
}
