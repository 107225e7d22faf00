package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.list;
import static dev.ratelimit.servlet.MiniJson.map;
import static dev.ratelimit.servlet.MiniJson.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.AclUser;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@link RateLimitStatusServlet} mapped as README's snippet maps it, next to two policies, on each
 * container: known traffic comes back as exactly those numbers in the JSON, the HTML is well-formed
 * and names the policies with a chart each, a secret key shows only as its digest, client-chosen
 * keys are escaped in both formats, and a bad format is a 400.
 */
class StatusPageIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    /** A Redis user that may not run scripts, for the refusal the page must show. */
    @RegisterExtension
    static final AclUser noScripts = new AclUser(redis, "noscripts", "+@all", "-@scripting");

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String SECRET = "sk_live_status_0123456789";
    private static final String HOSTILE_USER = "<script>alert(1)</script>";
    private static final String JSON_BREAKER = "x\",\"denials\":999,\"y\":\"";

    /** Where README's snippet maps the servlet. */
    private static String statusPath;

    @BeforeAll
    static void readReadme() throws Exception {
        String snippet = ReadmeSnippets.xml("web.xml status page");
        assertThat(snippet).contains("<servlet-class>" + RateLimitStatusServlet.class.getName() + "</servlet-class>")
                .contains("<security-constraint>").contains("<login-config>");
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(
                ("<web-app>" + snippet + "</web-app>").getBytes(StandardCharsets.UTF_8)));
        Matcher pattern = Pattern.compile("<url-pattern>([^<]+)</url-pattern>").matcher(snippet);
        assertThat(pattern.find()).isTrue();
        statusPath = pattern.group(1);
    }

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** A webapp with {@code api} (5 per minute per X-Api-Key), {@code search} (100 per minute per address) and the page. */
    private static URI deploy(Kind kind) throws Exception {
        String path = "/status" + apps.incrementAndGet();
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("api", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "5", "window", "1m",
                        "key", "header:X-Api-Key", "policyName", "api" + apps.get()), "/api/*")
                .filter("search", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "100",
                        "window", "1m", "policyName", "search" + apps.get()), "/search/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), statusPath)
                .build());
    }

    /** A webapp whose clients name themselves ({@code X-Test-User}), 1 per minute each, and the page. */
    private static URI deployUsers(Kind kind, String path, String policy) throws Exception {
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("auth", HeaderAuthenticationFilter.class.getName(), Map.of(), "/*")
                .filter("users", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "1", "window", "1m",
                        "key", "user", "policyName", policy), "/api/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), statusPath)
                .build());
    }

    private static URI status(URI app, String query) {
        return app.resolve(statusPath.substring(1) + query);
    }

    private static long sum(Object series) {
        long sum = 0;
        for (Object each : list(series)) {
            sum += (Long) each;
        }
        return sum;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theJsonCountsExactlyTheTrafficSentAndShowsTheSecretOnlyAsItsDigest(Kind kind) throws Exception {
        URI app = deploy(kind);
        int n = apps.get();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            statuses.add(Http.get(app.resolve("api/items"), "X-Api-Key", SECRET).statusCode());
        }
        for (int i = 0; i < 3; i++) {
            statuses.add(Http.get(app.resolve("search/q")).statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429, 200, 200, 200);

        HttpResponse<String> answer = Http.get(status(app, "?format=json"));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("Content-Type")).get().asString()
                .isEqualToIgnoringCase("application/json;charset=UTF-8");
        assertThat(answer.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(answer.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(answer.body()).doesNotContain(SECRET);
        Map<String, Object> page = map(MiniJson.parse(answer.body()));
        assertThat(list(page.get("policies"))).hasSize(2);
        assertThat(list(page.get("overview"))).as("worst first: both work, api denies more")
                .extracting(row -> map(row).get("name")).containsExactly("api" + n, "search" + n);
        assertThat(map(list(page.get("overview")).get(0))).containsEntry("level", "ok").containsEntry("decisions", 7L)
                .containsEntry("denied", 2L).containsEntry("breaker", "CLOSED");

        Map<String, Object> api = policy(page, "api" + n);
        assertThat(map(api.get("verdict")).get("level")).isEqualTo("ok");
        assertThat((String) map(api.get("verdict")).get("text")).startsWith("working: ").contains("29 % denied");
        Map<String, Object> limiter = map(list(api.get("limiters")).get(0));
        assertThat(map(limiter.get("sinceStart"))).containsEntry("allowed", 5L).containsEntry("denied", 2L)
                .containsEntry("degraded", 0L).as("no leases here").containsEntry("leaseAdmissions", 0L);
        Map<String, Object> recent = map(limiter.get("last5Minutes"));
        assertThat(recent).containsEntry("allowed", 5L).containsEntry("denied", 2L).containsEntry("degraded", 0L);
        assertThat(sum(recent.get("allowedPerSecond"))).isEqualTo(5);
        assertThat(sum(recent.get("deniedPerSecond"))).isEqualTo(2);
        assertThat(list(recent.get("allowedPerSecond"))).hasSize(300);
        assertThat(list(recent.get("mostDenied"))).singleElement().satisfies(key -> assertThat(map(key))
                .containsEntry("key", RedisKeys.digest(SECRET)).containsEntry("denials", 2L));
        assertThat((Long) map(limiter.get("redisLatencyMicros")).get("samples")).as("Redis answered").isPositive();
        assertThat(limiter).containsEntry("breaker", "CLOSED").containsEntry("effectiveLimit", 5L)
                .containsEntry("effectiveEnforce", true);

        Map<String, Object> search = map(list(policy(page, "search" + n).get("limiters")).get(0));
        assertThat(map(search.get("last5Minutes"))).containsEntry("allowed", 3L).containsEntry("denied", 0L);
        assertThat(sum(map(search.get("last5Minutes")).get("allowedPerSecond"))).isEqualTo(3);

        String html = Http.get(status(app, "")).body();
        assertThat(html).doesNotContain(SECRET).contains(RedisKeys.digest(SECRET));
        containers.get(kind).undeploy(app.getPath().replaceAll("/$", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theHtmlIsWellFormedNamesEachPolicyAndDrawsItsChart(Kind kind) throws Exception {
        URI app = deploy(kind);
        int n = apps.get();
        Http.get(app.resolve("api/items"), "X-Api-Key", "k");

        HttpResponse<String> answer = Http.get(status(app, ""));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("Content-Type")).get().asString()
                .isEqualToIgnoringCase("text/html;charset=UTF-8");
        assertThat(answer.headers().firstValue("Content-Security-Policy")).get().asString()
                .startsWith("default-src 'none'; style-src 'unsafe-inline'");
        assertThat(answer.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(answer.body()).startsWith("<!DOCTYPE html>").doesNotContain("<script");
        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(answer.body().getBytes(StandardCharsets.UTF_8)));
        NodeList overview = ((Element) page.getElementsByTagName("table").item(0)).getElementsByTagName("a");
        assertThat(overview.getLength()).as("the overview comes first, a link per policy").isEqualTo(2);
        assertThat(overview.item(0).getTextContent()).as("working before idle").isEqualTo("api" + n);
        assertThat(((Element) overview.item(1)).getAttribute("href")).isEqualTo("#policy-search" + n);
        NodeList headings = page.getElementsByTagName("h2");
        assertThat(headings.getLength()).isEqualTo(2);
        assertThat(headings.item(0).getTextContent()).isEqualTo("Policy api" + n);
        assertThat(headings.item(1).getTextContent()).isEqualTo("Policy search" + n);
        NodeList charts = page.getElementsByTagName("svg");
        assertThat(charts.getLength()).isEqualTo(2);
        assertThat(((Element) charts.item(0)).getElementsByTagName("title").item(0).getTextContent())
                .isEqualTo("api" + n + ": allowed and denied requests per second, last 5 minutes");
        assertThat(page.getDocumentElement().getTextContent()).contains("working: ").contains("idle: no requests");
        containers.get(kind).undeploy(app.getPath().replaceAll("/$", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void clientChosenKeysAreEscapedInBothFormats(Kind kind) throws Exception {
        String path = "/hostile" + apps.incrementAndGet();
        URI app = deployUsers(kind, path, "users" + apps.get());
        for (String user : List.of(HOSTILE_USER, HOSTILE_USER, JSON_BREAKER, JSON_BREAKER, JSON_BREAKER)) {
            Http.get(app.resolve("api/me"), "X-Test-User", user);
        }

        String json = Http.get(status(app, "?format=json")).body();
        String html = Http.get(status(app, "")).body();

        assertThat(json).doesNotContain(HOSTILE_USER).doesNotContain(JSON_BREAKER);
        List<Object> keys = list(map(map(list(map(list(map(MiniJson.parse(json)).get("policies")).get(0))
                .get("limiters")).get(0)).get("last5Minutes")).get("mostDenied"));
        assertThat(keys).extracting(key -> map(key).get("key") + "=" + map(key).get("denials"))
                .containsExactly(JSON_BREAKER + "=2", HOSTILE_USER + "=1");
        assertThat(html).doesNotContain(HOSTILE_USER).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        assertThat(page.getElementsByTagName("script").getLength()).isZero();
        assertThat(page.getDocumentElement().getTextContent()).contains(HOSTILE_USER).contains(JSON_BREAKER);
        containers.get(kind).undeploy(path);
    }

    /** The lookup's policies by name, from the JSON page. */
    private static Map<String, Object> lookedUp(String json, String name) {
        for (Object policy : list(map(map(MiniJson.parse(json)).get("client")).get("policies"))) {
            if (name.equals(map(policy).get("name"))) {
                return map(policy);
            }
        }
        throw new AssertionError("no policy " + name + " in the lookup of " + json);
    }

    private static String form(String... pairs) {
        StringBuilder form = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            form.append(i == 0 ? "" : "&").append(URLEncoder.encode(pairs[i], StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
        }
        return form.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aClientIsLookedUpByItsAddressAndByItsApiKeyWhichAppearsNowhere(Kind kind) throws Exception {
        URI app = deploy(kind);
        int n = apps.get();
        for (int i = 0; i < 7; i++) {
            Http.get(app.resolve("api/items"), "X-Api-Key", SECRET);
        }
        for (int i = 0; i < 3; i++) {
            Http.get(app.resolve("search/q"));
        }

        String byAddress = Http.get(status(app, "?" + form("format", "json", "client", "127.0.0.1"))).body();
        String byKey = Http.postForm(status(app, ""), form("format", "json", "client", SECRET)).body();
        HttpResponse<String> byKeyInQuery = Http.get(status(app, "?" + form("client", SECRET)));

        assertThat(lookedUp(byAddress, "search" + n)).containsEntry("key", "127.0.0.1").containsEntry("allowed", true)
                .containsEntry("limit", 100L).containsEntry("remaining", 97L).containsEntry("retryAfter", 0L)
                .containsEntry("degraded", false);
        assertThat(lookedUp(byAddress, "api" + n)).as("any value is some API key: one that sent nothing")
                .containsEntry("key", RedisKeys.digest("127.0.0.1")).containsEntry("remaining", 5L);
        Map<String, Object> api = lookedUp(byKey, "api" + n);
        assertThat(api).containsEntry("key", RedisKeys.digest(SECRET)).containsEntry("allowed", false)
                .containsEntry("limit", 5L).containsEntry("remaining", 0L).containsEntry("tiers", List.of());
        assertThat((Long) api.get("retryAfter")).isBetween(1L, 60L);
        assertThat((Long) api.get("reset")).isBetween(1L, 60L);
        assertThat((String) lookedUp(byKey, "search" + n).get("problem"))
                .isEqualTo("no client of this policy: policy 'search" + n + "' keys clients by ip, and no such client "
                        + "sends that value");
        assertThat(byKey).doesNotContain(SECRET);
        assertThat(byKeyInQuery.statusCode()).isEqualTo(200);
        assertThat(byKeyInQuery.body()).doesNotContain(SECRET).contains(RedisKeys.digest(SECRET));
        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(byKeyInQuery.body().getBytes(StandardCharsets.UTF_8)));
        assertThat(((Element) page.getElementsByTagName("section").item(0)).getAttribute("id")).isEqualTo("client");
        assertThat(lookedUp(Http.get(status(app, "?" + form("format", "json", "client", "127.0.0.1"))).body(),
                "search" + n)).as("looking up took nothing").containsEntry("remaining", 97L);
        assertThat(Http.get(status(app, "?client=")).statusCode()).isEqualTo(400);
        containers.get(kind).undeploy(app.getPath().replaceAll("/$", ""));
    }

    /**
     * In a {@code limits} policy a user name cannot be a client of {@code by ip}: the policy says
     * so, and the page still answers; an address keys both entries (as the X-User it could send).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aLimitsPolicySaysWhichEntryCannotHaveTheClientAndThePageAnswers(Kind kind) throws Exception {
        String path = "/dims" + apps.incrementAndGet();
        String policy = "dims" + apps.get();
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("dims", RateLimitFilter.class.getName(), FilterParams.of(redis,
                        "limits", "3 per 30s by ip; 5 per 30s by header:X-User", "policyName", policy), "/api/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), statusPath)
                .build());
        for (int i = 0; i < 2; i++) {
            assertThat(Http.get(app.resolve("api/items"), "X-User", "alice").statusCode()).isNotEqualTo(429);
        }

        HttpResponse<String> byUser = Http.get(status(app, "?" + form("format", "json", "client", "alice")));
        HttpResponse<String> byAddress = Http.get(status(app, "?" + form("client", "127.0.0.1")));
        HttpResponse<String> byAddressJson = Http.get(status(app, "?" + form("format", "json", "client", "127.0.0.1")));

        assertThat(byUser.statusCode()).isEqualTo(200);
        assertThat(lookedUp(byUser.body(), policy)).containsOnlyKeys("name", "problem").containsEntry("problem",
                "no client of this policy: policy '" + policy + "' decides its entry 'ip' by ip, and no such client "
                        + "sends that value; one value is looked up in every entry but global");
        assertThat(byUser.body()).doesNotContain("alice");
        assertThat(byAddress.statusCode()).isEqualTo(200);
        assertThat(byAddress.body()).contains("127.0.0.1 + " + RedisKeys.digest("127.0.0.1"));
        assertThat(lookedUp(byAddressJson.body(), policy))
                .containsEntry("key", "127.0.0.1 + " + RedisKeys.digest("127.0.0.1")).containsEntry("allowed", true)
                .containsEntry("limit", 3L).containsEntry("remaining", 1L).containsEntry("degraded", false);
        containers.get(kind).undeploy(path);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void hostileClientValuesAreEscapedWhereShownAndChangeNoHeader(Kind kind) throws Exception {
        String path = "/lookup" + apps.incrementAndGet();
        String policy = "users" + apps.get();
        URI app = deployUsers(kind, path, policy);
        Http.get(app.resolve("api/me"), "X-Test-User", HOSTILE_USER);
        String splitter = "a\r\nSet-Cookie: taken=1";
        for (String value : List.of(HOSTILE_USER, JSON_BREAKER, splitter, "\u2028\u0000\ud83d\ude00")) {
            HttpResponse<String> html = Http.get(status(app, "?" + form("client", value)));
            HttpResponse<String> json = Http.get(status(app, "?" + form("client", value, "format", "json")));

            assertThat(html.statusCode()).isEqualTo(200);
            assertThat(html.headers().map()).doesNotContainKey("set-cookie");
            assertThat(html.body()).doesNotContain(HOSTILE_USER).doesNotContain("<script");
            Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(html.body().getBytes(StandardCharsets.UTF_8)));
            assertThat(page.getElementsByTagName("script").getLength()).isZero();
            assertThat(json.body()).doesNotContain(HOSTILE_USER).doesNotContain(JSON_BREAKER);
            assertThat(lookedUp(json.body(), policy)).as("a user name is its own key").containsEntry("key", value);
        }
        assertThat(lookedUp(Http.get(status(app, "?" + form("client", HOSTILE_USER, "format", "json"))).body(), policy))
                .containsEntry("allowed", false).containsEntry("remaining", 0L);
        assertThat(Http.get(status(app, "?" + form("client", HOSTILE_USER))).body())
                .contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        containers.get(kind).undeploy(path);
    }

    /**
     * Redis gone (nothing listens where the policy points): the page reads only the JVM, so it still
     * answers, counts the degraded answers and says at once what is wrong.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withRedisGoneThePageStillAnswersAndSaysSo(Kind kind) throws Exception {
        String path = "/down" + apps.incrementAndGet();
        String policy = "down" + apps.get();
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("down", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "5", "window", "1m",
                        "policyName", policy, "redisUri", "redis://127.0.0.1:1", "redisTimeout", "100ms"), "/api/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), statusPath)
                .build());
        for (int i = 0; i < 6; i++) {
            assertThat(Http.get(app.resolve("api/x")).statusCode()).as("onRedisFailure=allow").isEqualTo(200);
        }

        HttpResponse<String> json = Http.get(status(app, "?format=json"));
        HttpResponse<String> html = Http.get(status(app, ""));

        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(html.statusCode()).isEqualTo(200);
        Map<String, Object> down = policy(map(MiniJson.parse(json.body())), policy);
        // Unreachable while the breaker is open, failing once it lets a probe through.
        assertThat(map(down.get("verdict")).get("text")).asString().matches("Redis (unreachable|failing).*");
        Map<String, Object> sinceStart = map(map(list(down.get("limiters")).get(0)).get("sinceStart"));
        assertThat(sinceStart.get("degraded")).isEqualTo(6L);
        assertThat(html.body()).containsPattern("Redis (unreachable|failing)");
        containers.get(kind).undeploy(path);
    }

    /**
     * A Redis user that may not run scripts: Redis answers every decision with NOPERM. That is no
     * outage, and waiting will not end it: the page says so at the top with what to do, JMX shows
     * it, and it is counted apart from Redis errors.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aUserWithoutScriptsIsShownAsARefusalWithWhatToDo(Kind kind) throws Exception {
        String path = "/noperm" + apps.incrementAndGet();
        String policy = "noperm" + apps.get();
        URI app = containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("api", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "5", "window", "1m",
                        "policyName", policy, "redisUri", noScripts.uri(), "redisTimeout", "2s"), "/api/*")
                .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), statusPath)
                .build());
        for (int i = 0; i < 3; i++) {
            assertThat(Http.get(app.resolve("api/x")).statusCode()).as("onRedisFailure=allow").isEqualTo(200);
        }

        Map<String, Object> refused = policy(map(MiniJson.parse(Http.get(status(app, "?format=json")).body())),
                policy);
        assertThat(map(refused.get("verdict")).get("level")).isEqualTo("alert");
        assertThat((String) map(refused.get("verdict")).get("text")).startsWith("Redis refuses the limiter: ")
                .contains("NOPERM", "grant it +@scripting", "onRedisFailure=allow lets requests through");
        Map<String, Object> limiter = map(list(refused.get("limiters")).get(0));
        assertThat(map(limiter.get("sinceStart"))).containsEntry("redisRefusals", 3L)
                .containsEntry("redisErrors", 0L).containsEntry("degraded", 3L);
        assertThat((String) limiter.get("redisRefusal")).contains("+@scripting");
        assertThat(Http.get(status(app, "")).body()).contains("Redis refuses the limiter");
        ObjectName bean = RateLimiterJmx.name(path, policy, 1);
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        assertThat(jmx.getAttribute(bean, "RedisRefusals")).isEqualTo(3L);
        assertThat((String) jmx.getAttribute(bean, "RedisRefusal")).contains("transport=transaction");
        containers.get(kind).undeploy(path);
    }

    /**
     * Requests without the API key {@code api} is keyed by share one bucket: the first is logged once,
     * and the verdict names the setting to change while they keep coming.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void requestsInTheSharedBucketAreLoggedOnceAndNamedByTheVerdict(Kind kind) throws Exception {
        URI app = deploy(kind);
        int n = apps.get();
        String log = CapturedLog.during(() -> {
            for (int i = 0; i < 7; i++) {
                Http.get(app.resolve("api/items"));
            }
        });

        assertThat(CapturedLog.lines(log, "[SHARED_BUCKET]")).as("one line in:\n" + log).isEqualTo(1);
        assertThat(log).contains("WARN").contains("Rate limit policy 'api" + n + "' [SHARED_BUCKET]: a request had no value"
                + " for any part of key 'header:X-Api-Key'");
        Map<String, Object> api = policy(map(MiniJson.parse(Http.get(status(app, "?format=json")).body())), "api" + n);
        assertThat(map(api.get("verdict")).get("level")).isEqualTo("warning");
        assertThat((String) map(api.get("verdict")).get("text")).startsWith("misconfigured (SHARED_BUCKET): 7 requests")
                .contains("init-param 'key'");
        assertThat(list(api.get("warnings"))).singleElement().satisfies(warning -> assertThat(map(warning))
                .containsEntry("code", "SHARED_BUCKET").containsEntry("requests", 7L));
        assertThat(Http.get(status(app, "")).body()).contains("misconfigured (SHARED_BUCKET)");
        containers.get(kind).undeploy(app.getPath().replaceAll("/$", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anUnknownFormatIsABadRequestNamingIt(Kind kind) throws Exception {
        URI app = deploy(kind);

        HttpResponse<String> answer = Http.get(status(app, "?format=%3Cxml%3E"));

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.headers().firstValue("Content-Type")).get().asString().startsWith("text/plain");
        assertThat(answer.body()).isEqualTo("format must be html or json, but was '<xml>'\n");
        assertThat(Http.send("HEAD", status(app, "")).statusCode()).isEqualTo(200);
        containers.get(kind).undeploy(app.getPath().replaceAll("/$", ""));
    }
}
