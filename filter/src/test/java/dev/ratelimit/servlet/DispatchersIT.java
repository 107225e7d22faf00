package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.DispatchingServlet;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A request is decided once, on Tomcat and on Jetty: with the filter mapped to every dispatcher
 * (and async-supported), a forwarded, an included, an async-dispatched request and one answered
 * by an error page each count once and carry one {@code RateLimit} header.
 */
class DispatchersIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** Two requests a minute, the filter on every dispatcher, the dispatching servlet in front of the echo. */
    private static URI deploy(Kind kind) throws DeploymentFailedException {
        String name = "dispatch" + apps.incrementAndGet();
        return containers.get(kind).deploy(AppDescriptor.builder("/" + name)
                .filter(name, RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "2", "window", "1m"), "/*")
                .dispatchers(name, DispatcherType.REQUEST, DispatcherType.FORWARD, DispatcherType.INCLUDE,
                        DispatcherType.ERROR, DispatcherType.ASYNC)
                .servlet("dispatching", DispatchingServlet.class.getName(), "/forward", "/include", "/async", "/fail")
                .asyncSupported(name, "dispatching")
                .errorPage(500, DispatchingServlet.TARGET)
                .build());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void forwardIncludeAndAsyncDispatchEachCountOnce(Kind kind) throws Exception {
        for (String how : new String[] {"forward", "include", "async"}) {
            URI app = deploy(kind);
            String policy = "\"" + app.getPath().replace("/", "") + "\"";
            for (int remaining = 1; remaining >= 0; remaining--) {
                HttpResponse<String> answer = Http.get(app.resolve(how));
                assertThat(answer.statusCode()).as(how).isEqualTo(200);
                assertThat(answer.body()).as(how + ": the echo answered").startsWith("GET /");
                assertThat(answer.headers().allValues("RateLimit")).as(how).singleElement(as(STRING))
                        .startsWith(policy + ";r=" + remaining + ";");
            }
            assertThat(Http.get(app.resolve(how)).statusCode()).as(how + ": two admitted, the third denied").isEqualTo(429);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aRequestAnsweredByAnErrorPageCountsOnce(Kind kind) throws Exception {
        URI app = deploy(kind);
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> answer = Http.get(app.resolve("fail"));
            assertThat(answer.statusCode()).isNotEqualTo(429);
            assertThat(answer.body()).as("the error page (the echo) answered").startsWith("GET /");
            assertThat(answer.headers().allValues("RateLimit")).hasSize(1);
        }
        assertThat(Http.get(app.resolve("fail")).statusCode()).isEqualTo(429);
    }
}
