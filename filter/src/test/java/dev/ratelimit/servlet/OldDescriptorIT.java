package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.EchoServlet;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A WAR whose web.xml is a Servlet 2.4 or 2.5 descriptor, read by the container itself (on Tomcat 11
 * and Jetty 12, and Tomcat 9 and Jetty 9.4 in the javax build): the filter limits its servlet as
 * under a 3.x descriptor. {@code maxDelay} needs what those schemas lack: without
 * {@code <async-supported>} and the {@code ASYNC} dispatcher a request over the limit gets its 429 at
 * once, with one WARN of each code; with them written into the old descriptor anyway, both
 * containers honour them and the request waits for its turn (docs/servers.md, "Old descriptors").
 */
class OldDescriptorIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    static Stream<Arguments> serversAndVersions() {
        List<Arguments> cases = new ArrayList<>();
        ServletContainers.kinds().forEach(kind -> List.of("2.4", "2.5").forEach(version -> cases.add(Arguments.of(kind, version))));
        return cases.stream();
    }

    /** Deploys the descriptor at {@code /old<app>}; answers the URI of its servlet, {@code /orders}. */
    private static URI deploy(Kind kind, int app, String webXml) throws Exception {
        return containers.get(kind).deploy(AppDescriptor.builder("/old" + app).webXml(webXml).build()).resolve("orders");
    }

    /** Init-params for app number {@code app}: apart per app, so that the cases never share a bucket. */
    private static Map<String, String> params(int app, String... pairs) {
        Map<String, String> params = FilterParams.of(redis, pairs);
        params.put("keyPrefix", redis.keyPrefix() + app + ":");
        return params;
    }

    @ParameterizedTest(name = "{0}, web.xml {1}")
    @MethodSource("serversAndVersions")
    void anOldDescriptorsFilterLimitsItsServlet(Kind kind, String version) throws Exception {
        int app = apps.incrementAndGet();
        URI orders = deploy(kind, app, WebXml.of(version, WebXml.filter("api", "", params(app, "limit", "2", "window", "1m"))
                + WebXml.filterMapping("api", "/*")
                + WebXml.servlet("orders", EchoServlet.class.getName(), "/orders", "")));

        HttpResponse<String> first = Http.get(orders);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"api\";r=1;t=60");
        assertThat(Http.get(orders).statusCode()).isEqualTo(200);
        HttpResponse<String> over = Http.get(orders);
        assertThat(over.statusCode()).isEqualTo(429);
        assertThat(over.headers().firstValue("Retry-After")).hasValue("60");
    }

    @ParameterizedTest(name = "{0}, web.xml {1}")
    @MethodSource("serversAndVersions")
    void withoutTheAsyncElementsMaxDelayRefusesAtOnceAndSaysWhy(Kind kind, String version) throws Exception {
        int app = apps.incrementAndGet();
        String webXml = WebXml.of(version, WebXml.filter("shaped", "",
                params(app, "algorithm", "gcra", "limit", "1", "window", "1s", "maxDelay", "2s"))
                + WebXml.filterMapping("shaped", "/*")
                + WebXml.servlet("orders", EchoServlet.class.getName(), "/orders", ""));
        URI[] orders = new URI[1];
        String log = CapturedLog.during(() -> orders[0] = deploy(kind, app, webXml));
        assertThat(CapturedLog.lines(log, "[NO_ASYNC_DISPATCHER]")).as("found in the descriptor at startup").isEqualTo(1);

        String requests = CapturedLog.during(() -> {
            assertThat(Http.get(orders[0]).statusCode()).isEqualTo(200);
            HttpResponse<String> over = Http.get(orders[0]);
            assertThat(over.statusCode()).as("refused at once, as without maxDelay").isEqualTo(429);
            assertThat(over.headers().firstValue(Admission.DELAY_HEADER)).isEmpty();
        });
        assertThat(CapturedLog.lines(requests, "[NOT_ASYNC_SUPPORTED]")).as("the servlet named").isEqualTo(1);
        assertThat(requests).contains("requests to /old" + app + "/orders (servlet 'orders') cannot wait");
    }

    @ParameterizedTest(name = "{0}, web.xml {1}")
    @MethodSource("serversAndVersions")
    void theAsyncElementsWrittenIntoAnOldDescriptorLetMaxDelayWait(Kind kind, String version) throws Exception {
        int app = apps.incrementAndGet();
        URI orders = deploy(kind, app, WebXml.of(version, WebXml.filter("shaped", WebXml.ASYNC_SUPPORTED,
                params(app, "algorithm", "gcra", "limit", "1", "window", "1s", "maxDelay", "2s"))
                + WebXml.filterMapping("shaped", "/*", "REQUEST", "ASYNC")
                + WebXml.servlet("orders", EchoServlet.class.getName(), "/orders", WebXml.ASYNC_SUPPORTED)));

        assertThat(Http.get(orders).statusCode()).isEqualTo(200);
        HttpResponse<String> waited = Http.get(orders);
        assertThat(waited.statusCode()).as("held for its turn, then served").isEqualTo(200);
        assertThat(waited.headers().firstValue(EchoServlet.ECHO_HEADER)).hasValue("1");
        assertThat(waited.headers().firstValue(Admission.DELAY_HEADER)).as("it waited").isPresent();
    }
}
