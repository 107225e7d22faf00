package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.EchoServlet;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile forwarding headers behind a trusted proxy (the embedded containers' peer, 127.0.0.1),
 * on Tomcat and on Jetty: a broken {@code Forwarded} is never a 500 and never the client's text,
 * only the header the proxies write is read, and IPv6 clients share one bucket per /64.
 */
class ForwardingHeadersIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String LOCALHOST = "127.0.0.0/8, ::1/128";

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** An app limiting every client to one request a minute, behind the given init-params. */
    private static URI deploy(Kind kind, String... pairs) throws DeploymentFailedException {
        String path = "/fwd" + apps.incrementAndGet();
        String[] all = new String[pairs.length + 4];
        System.arraycopy(new String[] {"limit", "1", "window", "1m"}, 0, all, 0, 4);
        System.arraycopy(pairs, 0, all, 4, pairs.length);
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("fwd" + apps.get(), RateLimitFilter.class.getName(), FilterParams.of(redis, all), "/*")
                .build());
    }

    private static int status(URI app, String... headers) {
        return Http.get(app, headers).statusCode();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anEmptyQuotedForIsThePeerNotA500(Kind kind) throws Exception {
        for (String header : new String[] {"Forwarded", "X-Forwarded-For"}) {
            URI app = deploy(kind, "trustedProxies", LOCALHOST, "forwardedHeader", header);
            HttpResponse<String> first = Http.get(app, "Forwarded", "for=\"");
            assertThat(first.statusCode()).as(header).isEqualTo(200);
            assertThat(first.headers().firstValue(EchoServlet.ECHO_HEADER)).hasValue("1");
            assertThat(status(app, "Forwarded", "for=\"")).as("the peer's bucket, now empty").isEqualTo(429);
            assertThat(status(app, "Forwarded", "for=\"\"")).isEqualTo(429);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anUnterminatedQuoteAProxyAppendedToNeverBecomesTheKey(Kind kind) throws Exception {
        URI app = deploy(kind, "trustedProxies", LOCALHOST, "forwardedHeader", "Forwarded");
        assertThat(status(app, "Forwarded", "for=\"x, for=\"[2001:db8::1]\"")).isEqualTo(200);
        assertThat(status(app, "Forwarded", "for=\"y, for=\"[2001:db8::1]\""))
                .as("not a bucket of its own named 'y, for=': the proxy's").isEqualTo(429);
        assertThat(status(app, "Forwarded", "for=\"z", "Forwarded", "for=\"[2001:db8:7::1]:4711\""))
                .as("a proxy's own line after the broken one is believed").isEqualTo(200);
        assertThat(status(app, "Forwarded", "for=\"[2001:db8:7::2]\"")).as("the same /64").isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withForwardedTheProxiesXForwardedForIsIgnored(Kind kind) throws Exception {
        URI app = deploy(kind, "trustedProxies", LOCALHOST, "forwardedHeader", "forwarded");
        assertThat(status(app, "Forwarded", "for=198.51.100.1", "X-Forwarded-For", "198.51.100.2")).isEqualTo(200);
        assertThat(status(app, "Forwarded", "for=198.51.100.1", "X-Forwarded-For", "198.51.100.3"))
                .as("a new X-Forwarded-For is no new client").isEqualTo(429);
        assertThat(status(app, "X-Forwarded-For", "198.51.100.4")).as("the peer's own bucket").isEqualTo(200);
        assertThat(status(app, "X-Forwarded-For", "198.51.100.5")).isEqualTo(429);
        assertThat(status(app, "Forwarded", "for=\"198.51.100.6:5000\";proto=http")).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void ipv6ClientsShareOneBucketPerSlash64(Kind kind) throws Exception {
        URI app = deploy(kind, "trustedProxies", LOCALHOST);
        assertThat(status(app, "X-Forwarded-For", "2001:db8:1:2::1")).isEqualTo(200);
        assertThat(status(app, "X-Forwarded-For", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:443"))
                .as("another address in the same /64").isEqualTo(429);
        assertThat(status(app, "X-Forwarded-For", "2001:db8:1:3::1")).as("the next /64").isEqualTo(200);
        assertThat(status(app, "X-Forwarded-For", "::ffff:198.51.100.7")).isEqualTo(200);
        assertThat(status(app, "X-Forwarded-For", "198.51.100.7")).as("IPv4-mapped is the IPv4 address")
                .isEqualTo(429);

        URI each = deploy(kind, "trustedProxies", LOCALHOST, "ipv6Prefix", "128");
        assertThat(status(each, "X-Forwarded-For", "2001:db8:1:2::1")).isEqualTo(200);
        assertThat(status(each, "X-Forwarded-For", "2001:db8:1:2::2")).as("/128 keeps them apart").isEqualTo(200);
        assertThat(status(each, "X-Forwarded-For", "2001:db8:1:2:0:0:0:1")).isEqualTo(429);
    }
}
