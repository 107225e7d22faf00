package dev.ratelimit.jaxrs.legacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.legacy.LegacyContainer;
import dev.ratelimit.testing.legacy.LegacyWebApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The javax JAX-RS jar (the jakarta module's sources, generated for javax.ws.rs 2.1 and Java 8)
 * on a legacy JAX-RS runtime in Tomcat 9 and Jetty 9.4, over real HTTP. Each runtime's subclass
 * names its servlet; they run in separate JVMs, as each installs a JVM-wide RuntimeDelegate.
 */
abstract class LegacyRateLimitedContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final AtomicInteger APPS = new AtomicInteger();
    private static LegacyContainer tomcat;
    private static LegacyContainer jetty;

    @BeforeAll
    static void start() {
        tomcat = LegacyContainer.tomcat9();
        jetty = LegacyContainer.jetty94();
    }

    @AfterAll
    static void stop() {
        tomcat.stop();
        jetty.stop();
    }

    static Stream<LegacyContainer> containers() {
        return Stream.of(tomcat, jetty);
    }

    /** The runtime's servlet class, e.g. Jersey's ServletContainer. */
    abstract String servletClass();

    /** The init-params that give the servlet its Application, plus what the runtime needs. */
    abstract Map<String, String> servletParams(Class<?> application);

    private LegacyWebApp app(Class<?> application) {
        return LegacyWebApp.at("/rest" + APPS.incrementAndGet())
                .contextParam("ratelimit.redisUri", redis.uri())
                .contextParam("ratelimit.keyPrefix", redis.keyPrefix() + APPS.get() + ":")
                .servlet("jaxrs", servletClass(), servletParams(application), "/*");
    }

    private static HttpResponse<String> get(URI uri, String client) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).header("X-Client", client).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void anAnnotatedResourceIsLimitedWithTheJakartaJarsAnswer(LegacyContainer container) throws Exception {
        LegacyWebApp app = app(LegacyResources.LimitedApplication.class);
        URI base = container.deploy(app);

        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> allowed = get(base.resolve("limited"), "alice");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit")).get().asString().contains(";r=" + (3 - i) + ";");
        }
        HttpResponse<String> denied = get(base.resolve("limited"), "alice");
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).get().asString().matches("[1-9][0-9]*");
        assertThat(denied.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        assertThat(denied.body()).contains("\"status\":429");
        assertThat(get(base.resolve("limited"), "bob").statusCode()).as("another client").isEqualTo(200);

        HttpResponse<String> free = get(base.resolve("free"), "alice");
        assertThat(free.statusCode()).isEqualTo(200);
        assertThat(free.headers().firstValue("RateLimit")).as("unannotated: no headers").isEmpty();
        container.undeploy(app.contextPath);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("containers")
    void aBadAnnotationFailsTheDeployment(LegacyContainer container) {
        LegacyWebApp app = app(LegacyResources.BadApplication.class);
        assertThatThrownBy(() -> container.deploy(app)).isInstanceOf(IllegalStateException.class);
    }
}
