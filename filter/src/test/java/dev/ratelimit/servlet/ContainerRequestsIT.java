package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.EchoServlet;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests the container answers around the filter, in descriptors the container reads itself:
 * the static files the quick start's {@code /*} limits too (and {@code excludePaths} leaves alone),
 * and a FORM login's {@code j_security_check}, which the container's authenticator answers before
 * any filter runs; a login servlet of the application's own is limited as docs/servers.md says.
 */
class ContainerRequestsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final String FORM_LOGIN = "<security-constraint>\n  <web-resource-collection>\n"
            + "    <web-resource-name>signed in</web-resource-name><url-pattern>/secure/*</url-pattern>\n"
            + "  </web-resource-collection>\n  <auth-constraint><role-name>user</role-name></auth-constraint>\n"
            + "</security-constraint>\n<login-config>\n  <auth-method>FORM</auth-method>\n"
            + "  <form-login-config><form-login-page>/login.html</form-login-page>"
            + "<form-error-page>/error.html</form-error-page></form-login-config>\n</login-config>\n"
            + "<security-role><role-name>user</role-name></security-role>\n";

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** README's quick start web.xml as written, on this test's Redis, its keys apart; {@code more} init-params added. */
    private static String quickStart(String path, String more) throws Exception {
        String xml = ReadmeSnippets.xml("quick start web.xml (javax)").strip();
        assertThat(xml).contains("<url-pattern>/*</url-pattern>");
        return xml.replace("${env:REDIS_URL:redis://localhost:6379}", redis.uri())
                .replace("</filter>\n", "  <init-param><param-name>keyPrefix</param-name><param-value>" + redis.keyPrefix()
                        + path.substring(1) + ":</param-value></init-param>\n" + more + "  </filter>\n");
    }

    private static URI deploy(Kind kind, String path, String webXml) throws Exception {
        return containers.get(kind).deploy(AppDescriptor.builder(path).webXml(webXml)
                .resource("/static/app.css", "body { margin: 0 }").resource("/index.html", "<p>shop</p>")
                .resource("/login.html", "<form method=post action=j_security_check></form>")
                .resource("/error.html", "wrong").user("alice", "secret", "user").user("bob", "hunter2", "user").build());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theQuickStartsMappingCountsStaticFiles(Kind kind) throws Exception {
        URI app = deploy(kind, "/static-" + kind, quickStart("/static-" + kind, ""));
        for (int left = 4; left >= 0; left--) {
            HttpResponse<String> css = Http.get(app.resolve("static/app.css"));
            assertThat(css.statusCode()).as("the container's default servlet serves it").isEqualTo(200);
            assertThat(css.body()).isEqualTo("body { margin: 0 }");
            assertThat(css.headers().firstValue("RateLimit")).as("counted").hasValue("\"ratelimit\";r=" + left + ";t=60");
        }
        assertThat(Http.get(app.resolve("index.html")).statusCode()).as("the page itself, after five files").isEqualTo(429);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void excludePathsLeavesStaticFilesUncounted(Kind kind) throws Exception {
        String path = "/excluded-" + kind;
        URI app = deploy(kind, path, quickStart(path,
                "    <init-param><param-name>excludePaths</param-name><param-value>/static/*</param-value></init-param>\n"));
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> css = Http.get(app.resolve("static/app.css"));
            assertThat(css.statusCode()).isEqualTo(200);
            assertThat(css.headers().firstValue("RateLimit")).as("not limited").isEmpty();
        }
        assertThat(Http.get(app.resolve("index.html")).headers().firstValue("RateLimit"))
                .as("the page is the first request counted").hasValue("\"ratelimit\";r=4;t=60");
    }

    private static String formLoginApp(String path) {
        Map<String, String> all = FilterParams.of(redis, "limit", "20", "window", "1m");
        all.put("keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        Map<String, String> login = new LinkedHashMap<>(FilterParams.of(redis, "limit", "3", "window", "1m",
                "countStatus", "401", "key", "ip+param:j_username", "methods", "POST"));
        login.put("keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        return WebXml.of("3.1", WebXml.filter("all", "", all) + WebXml.filterMapping("all", "/*")
                + WebXml.filter("login", "", login) + WebXml.filterMapping("login", "/login")
                + WebXml.servlet("orders", EchoServlet.class.getName(), "/orders", "")
                + WebXml.servlet("page", EchoServlet.class.getName(), "/secure/*", "")
                + WebXml.servlet("login", RealmLoginServlet.class.getName(), "/login", "")
                + FORM_LOGIN);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theContainersFormLoginIsAnsweredBeforeAnyFilter(Kind kind) throws Exception {
        String path = "/form-" + kind;
        URI app = deploy(kind, path, formLoginApp(path));
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> attempt = Http.postForm(app.resolve("j_security_check"), "j_username=alice&j_password=wrong");
            assertThat(attempt.headers().firstValue("RateLimit")).as("attempt %d: not seen by the filter", i + 1).isEmpty();
            if (kind == Kind.TOMCAT) {
                assertThat(attempt.statusCode()).as("Tomcat forwards to the error page").isEqualTo(200);
                assertThat(attempt.body()).isEqualTo("wrong");
            } else {
                assertThat(attempt.statusCode()).as("Jetty redirects to the error page").isEqualTo(303);
                assertThat(attempt.headers().firstValue("Location")).hasValueSatisfying(to -> assertThat(to).endsWith("/error.html"));
            }
        }
        HttpResponse<String> page = Http.get(app.resolve("secure/page"));
        assertThat(page.headers().firstValue("RateLimit")).as("nor the sign-in a protected page asks for").isEmpty();
        if (kind == Kind.TOMCAT) {
            assertThat(page.statusCode()).as("Tomcat forwards to the login page").isEqualTo(200);
        } else {
            assertThat(page.statusCode()).as("Jetty redirects to it (302 on 12, 303 on 9.4)").isIn(302, 303);
            assertThat(page.headers().firstValue("Location")).hasValueSatisfying(to -> assertThat(to).contains("/login.html"));
        }
        assertThat(Http.get(app.resolve("orders")).headers().firstValue("RateLimit"))
                .as("the first request the filter counted").hasValue("\"all\";r=19;t=60");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aLoginServletOfTheApplicationsOwnIsLimitedOnFailedAttempts(Kind kind) throws Exception {
        String path = "/own-" + kind;
        URI login = deploy(kind, path, formLoginApp(path)).resolve("login");
        for (int i = 0; i < 4; i++) {
            assertThat(Http.postForm(login, "j_username=bob&j_password=hunter2").statusCode())
                    .as("the realm signs bob in; a success never counts").isEqualTo(303);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(Http.postForm(login, "j_username=alice&j_password=wrong").statusCode()).isEqualTo(401);
        }
        assertThat(Http.postForm(login, "j_username=alice&j_password=secret").statusCode())
                .as("three failures lock alice out at this address, her right password too").isEqualTo(429);
        assertThat(Http.postForm(login, "j_username=bob&j_password=hunter2").statusCode()).isEqualTo(303);

        // Signed in as j_security_check signs in: a browser that keeps its session cookie gets the page.
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        URI page = login.resolve("secure/page");
        assertThat(browser.send(HttpRequest.newBuilder(page).build(), BodyHandlers.ofString()).headers()
                .firstValue(EchoServlet.ECHO_HEADER)).as("not yet signed in").isEmpty();
        HttpResponse<String> signIn = browser.send(HttpRequest.newBuilder(login)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(BodyPublishers.ofString("j_username=bob&j_password=hunter2")).build(), BodyHandlers.ofString());
        assertThat(signIn.statusCode()).isEqualTo(303);
        assertThat(browser.send(HttpRequest.newBuilder(page).build(), BodyHandlers.ofString()).headers()
                .firstValue(EchoServlet.ECHO_HEADER)).as("the protected page, signed in").hasValue("1");
    }
}
