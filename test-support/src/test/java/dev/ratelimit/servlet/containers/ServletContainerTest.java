package dev.ratelimit.servlet.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import jakarta.servlet.ServletException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The harness itself, on Tomcat 11 and Jetty 12, over real HTTP. */
class ServletContainerTest {

    private static final String BOTH = "dev.ratelimit.servlet.containers.ServletContainers#both";
    private static final String KINDS = "dev.ratelimit.servlet.containers.ServletContainers#kinds";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Shared servers for the tests that use {@link #KINDS}: proves one server holds many deploys. */
    private static final ServletContainers.Pool POOL = new ServletContainers.Pool();

    @AfterAll
    static void closePool() {
        POOL.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void echoAnswersOverRealHttp(ServletContainer container) throws Exception {
        URI base = container.deploy(AppDescriptor.builder("/app").build());

        assertThat(base).isEqualTo(URI.create("http://127.0.0.1:" + container.port() + "/app/"));
        assertThat(container.uri("/app")).isEqualTo(base);
        HttpResponse<String> get = get(base.resolve("hello/world?x=1"));
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).isEqualTo("GET /app/hello/world");
        assertThat(get.headers().firstValue("X-Echo")).hasValue("1");
        assertThat(get.headers().firstValue("Content-Type")).hasValueSatisfying(ct -> assertThat(ct).startsWith("text/plain"));
        assertThat(get.headers().firstValue(EchoServlet.REMOTE_ADDR_HEADER)).hasValue("127.0.0.1");

        HttpResponse<String> post = send(HttpRequest.newBuilder(base.resolve("items")).POST(HttpRequest.BodyPublishers.ofString("x")));
        assertThat(post.statusCode()).isEqualTo(200);
        assertThat(post.body()).isEqualTo("POST /app/items");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void rootContext(ServletContainer container) throws Exception {
        URI base = container.deploy(AppDescriptor.builder("").build());

        assertThat(base).isEqualTo(URI.create("http://127.0.0.1:" + container.port() + "/"));
        HttpResponse<String> response = get(base.resolve("x/y"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("GET /x/y");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void initParamsAndContextParamsReachTheFilterAsStrings(ServletContainer container) throws Exception {
        URI base = container.deploy(AppDescriptor.builder("/app")
                .contextParam("ratelimit.redis", "redis://127.0.0.1:6379/0")
                .filter("stamp", HeaderStampFilter.class.getName(),
                        Map.of("header", "X-Limit", "value", "10 per 1s; burst=abc", "contextParam", "ratelimit.redis"),
                        "/*")
                .build());

        HttpResponse<String> response = get(base.resolve("a"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().allValues("X-Limit")).containsExactly("10 per 1s; burst=abc");
        assertThat(response.headers().firstValue(HeaderStampFilter.CONTEXT_PARAM_HEADER)).hasValue("redis://127.0.0.1:6379/0");
        assertThat(response.headers().firstValue("X-Echo")).hasValue("1");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void filtersRunInDeclarationOrder(ServletContainer container) throws Exception {
        // names deliberately not alphabetical: the order is the declaration order
        URI base = container.deploy(AppDescriptor.builder("/app")
                .filter("zeta", HeaderStampFilter.class, Map.of("value", "1-zeta"), "/*")
                .filter("alpha", HeaderStampFilter.class, Map.of("value", "2-alpha"), "/*")
                .filter("mid", HeaderStampFilter.class, Map.of("value", "3-mid"), "/*")
                .build());

        HttpResponse<String> response = get(base.resolve("x"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().allValues(HeaderStampFilter.DEFAULT_HEADER)).containsExactly("1-zeta", "2-alpha", "3-mid");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void urlPatternsRestrictFilters(ServletContainer container) throws Exception {
        URI base = container.deploy(AppDescriptor.builder("/app")
                .filter("api", HeaderStampFilter.class, Map.of("value", "api"), "/api/*")
                .filter("json", HeaderStampFilter.class, Map.of("value", "json"), "*.json")
                .filter("exact", HeaderStampFilter.class, Map.of("value", "exact"), "/exact", "/also-exact")
                .build());

        assertThat(chain(base.resolve("api/users"))).containsExactly("api");
        assertThat(chain(base.resolve("api/users.json"))).containsExactly("api", "json");
        assertThat(chain(base.resolve("data.json"))).containsExactly("json");
        assertThat(chain(base.resolve("exact"))).containsExactly("exact");
        assertThat(chain(base.resolve("also-exact"))).containsExactly("exact");
        assertThat(chain(base.resolve("exact/not"))).isEmpty();
        assertThat(chain(base.resolve("elsewhere"))).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void failingInitFailsTheDeploymentWithItsMessage(ServletContainer container) throws Exception {
        String message = "init-param 'limit' must be a positive integer but was 'abc'";
        String key = UUID.randomUUID().toString();
        AppDescriptor app = AppDescriptor.builder("/app")
                .filter("fine", LifecycleCountingFilter.class, Map.of("key", key), "/*")
                .filter("ratelimit", FailingInitFilter.class, Map.of("message", message), "/*")
                .build();

        DeploymentFailedException failure = catchThrowableOfType(DeploymentFailedException.class, () -> container.deploy(app));

        assertThat(failure).isNotNull().hasMessageContaining(message);
        assertThat(failure.getCause()).isInstanceOf(ServletException.class).hasMessage(message);
        // the filter that did start before the failing one has been destroyed again
        assertThat(LifecycleCountingFilter.inits(key)).isEqualTo(1);
        assertThat(LifecycleCountingFilter.destroys(key)).isEqualTo(1);
        int status = get(container.uri("/app").resolve("x")).statusCode();
        assertThat(status).isIn(404, 503);

        // the container is still usable, also at the same path
        URI base = container.deploy(AppDescriptor.builder("/app").build());
        assertThat(get(base.resolve("x")).statusCode()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void unknownFilterClassFailsTheDeployment(ServletContainer container) throws Exception {
        AppDescriptor app = AppDescriptor.builder("/app").filter("missing", "com.example.NoSuchFilter", Map.of(), "/*").build();

        DeploymentFailedException failure = catchThrowableOfType(DeploymentFailedException.class, () -> container.deploy(app));

        assertThat(failure).isNotNull().hasMessageContaining("com.example.NoSuchFilter");
        assertThat(get(container.uri("/app")).statusCode()).isNotEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(KINDS)
    void twoAppsOnOneContainerAndUndeployOne(ServletContainers.Kind kind) throws Exception {
        ServletContainer container = POOL.get(kind);
        String one = "/one-" + UUID.randomUUID();
        String two = "/two-" + UUID.randomUUID();
        URI first = container.deploy(AppDescriptor.builder(one).filter("s", HeaderStampFilter.class, Map.of("value", "one"), "/*").build());
        URI second = container.deploy(AppDescriptor.builder(two).filter("s", HeaderStampFilter.class, Map.of("value", "two"), "/*").build());

        assertThat(first.getPort()).isEqualTo(second.getPort());
        assertThat(chain(first.resolve("x"))).containsExactly("one");
        assertThat(chain(second.resolve("x"))).containsExactly("two");

        container.undeploy(one);

        assertThat(get(first.resolve("x")).statusCode()).isNotEqualTo(200);
        HttpResponse<String> stillThere = get(second.resolve("x"));
        assertThat(stillThere.statusCode()).isEqualTo(200);
        assertThat(stillThere.body()).isEqualTo("GET " + two + "/x");
        container.undeploy(two);
        container.undeploy(two); // idempotent
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(KINDS)
    void undeployRunsDestroy(ServletContainers.Kind kind) throws Exception {
        ServletContainer container = POOL.get(kind);
        String key = UUID.randomUUID().toString();
        URI base = container.deploy(AppDescriptor.builder("/counted")
                .filter("counting", LifecycleCountingFilter.class, Map.of("key", key), "/*")
                .build());
        assertThat(get(base.resolve("x")).statusCode()).isEqualTo(200);
        assertThat(LifecycleCountingFilter.inits(key)).isEqualTo(1);
        assertThat(LifecycleCountingFilter.destroys(key)).isZero();

        container.undeploy("/counted");

        assertThat(LifecycleCountingFilter.destroys(key)).isEqualTo(1);
        assertThat(get(base.resolve("x")).statusCode()).isNotEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void closeRunsDestroy(ServletContainer container) throws Exception {
        String key = UUID.randomUUID().toString();
        container.deploy(AppDescriptor.builder("/app").filter("counting", LifecycleCountingFilter.class, Map.of("key", key), "/*").build());

        container.close();

        assertThat(LifecycleCountingFilter.destroys(key)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(BOTH)
    void extraServletsWithoutEcho(ServletContainer container) throws Exception {
        URI base = container.deploy(AppDescriptor.builder("/app").withoutEcho()
                .servlet("only", EchoServlet.class.getName(), "/only/*")
                .build());

        assertThat(get(base.resolve("only/x")).body()).isEqualTo("GET /app/only/x");
        assertThat(get(base.resolve("elsewhere")).statusCode()).isEqualTo(404);
    }

    @Test
    void webAppRejectsBadDeclarations() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> AppDescriptor.builder("app"));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> AppDescriptor.builder("/app").filter("f", HeaderStampFilter.class, Map.of()));
        assertThat(AppDescriptor.builder("/").build().contextPath()).isEmpty();
    }

    private static java.util.List<String> chain(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> response = get(uri);
        assertThat(response.statusCode()).as("status of %s", uri).isEqualTo(200);
        return response.headers().allValues(HeaderStampFilter.DEFAULT_HEADER);
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri).GET());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return HTTP.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
