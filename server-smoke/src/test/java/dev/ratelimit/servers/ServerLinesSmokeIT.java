package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.LegacyApp.JedisLine;
import dev.ratelimit.servers.ServerLine.Descriptor;
import dev.ratelimit.servers.ServerLine.Namespace;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.testing.AclUsers;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * README's web.xml, in a WAR built as README says, deployed into the standalone distribution of
 * every server line: Tomcat 7 (in a Servlet 3.0 web.xml), 8.5 and 9, Jetty 9.4, 10 and 12 ee8
 * (javax), Tomcat 10.0 and 10.1, Jetty 11, 12 ee9 and 12 ee10 (jakarta), the Java 8 lines on a real Java 8
 * when the build gives one. Each server is its own JVM with its own Redis ACL user, so Redis'
 * {@code CLIENT LIST} tells whose connections are whose; all share one Redis. Beside it, issue 38's
 * legacy WAR, which carries its own old Jedis: with the plain jars, and with the all-in-one jar;
 * and on Tomcat 7 an application on the filter's paths that Servlet 3.1 servers do not prove
 * safe on 3.0 ({@link Servlet30App}).
 */
class ServerLinesSmokeIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration DEPLOY_DEADLINE = Duration.ofSeconds(60);
    private static final String RUN = Long.toString(System.nanoTime(), 36);
    private static final String PASSWORD = "smoke-" + RUN;
    /** More than the 100 a minute README's {@code api} filter allows, so that some must be refused. */
    private static final int BURST = 130;
    private static final String KEY_PREFIX = "ratelimit.keyPrefix";

    @TempDir
    static Path bases;

    private static final Map<ServerLine, StandaloneServer> servers = new EnumMap<>(ServerLine.class);
    /** Where README's quick start is followed: the servers it names. */
    private static final Map<ServerLine, Namespace> QUICK_START_SERVERS =
            Map.of(ServerLine.TOMCAT_9, Namespace.JAVAX, ServerLine.JETTY_12_EE10, Namespace.JAKARTA);

    @BeforeAll
    static void startEveryServerAndDeploy() throws Exception {
        for (ServerLine line : ServerLine.values()) {
            AclUsers.create(redis, user(line, "readme"), PASSWORD, "+@all");
            AclUsers.create(redis, user(line, "lifecycle"), PASSWORD, "+@all");
        }
        // README's quick start jars, built by its command in module quick-start: there before any server starts.
        QuickStart quickStart = QuickStart.fromReadme();
        Map<Namespace, Path> quickStartLibs = new EnumMap<>(Namespace.class);
        for (Namespace namespace : Namespace.values()) {
            quickStartLibs.put(namespace, QuickStart.builtLib(namespace));
        }
        ExecutorService starter = Executors.newFixedThreadPool(ServerLine.values().length);
        try {
            Map<ServerLine, Future<StandaloneServer>> starting = new EnumMap<>(ServerLine.class);
            for (ServerLine line : ServerLine.values()) {
                starting.put(line, starter.submit(() -> StandaloneServer.start(line,
                        bases.resolve(line.name().toLowerCase(Locale.ROOT)), uri(user(line, "readme")))));
            }
            for (Map.Entry<ServerLine, Future<StandaloneServer>> server : starting.entrySet()) {
                servers.put(server.getKey(), server.getValue().get());
            }
        } finally {
            starter.shutdown();
        }
        // Every webapp goes in at once, so that the servers' scans pick them up side by side.
        SmokeWar readme = SmokeWar.readme();
        for (StandaloneServer server : servers.values()) {
            ServerLine line = server.line();
            deploy(server, "readme", readme.contextParam(KEY_PREFIX, redis.key(line.name() + ":")));
            // Seven cold servers on two cores: the burst's first round trips may wait for new pooled
            // connections longer than the snippet's 200 ms redisTimeout, and onRedisFailure=allow
            // would then let them through. Exactness is what this app shows; it waits longer.
            deploy(server, "exact", readme.contextParam(KEY_PREFIX, redis.key(line.namespace() + ":"))
                    .contextParam("ratelimit.redisTimeout", "5s"));
            deploy(server, "typo", readme.apiInitParam("algorithm", "sliding-logg")
                    .contextParam(KEY_PREFIX, redis.key(line.name() + ":typo:")));
            deploy(server, "lifecycle", readme.redisUri(uri(user(line, "lifecycle")))
                    .contextParam(KEY_PREFIX, redis.key(line.name() + ":lifecycle:")));
            for (JedisLine jedis : JedisLine.values()) {
                // Issue 38's legacy WAR: its own old Jedis beside the plain jars (refused with one
                // line), and beside the all-in-one jar with a servlet of its own using that Jedis.
                deploy(server, legacy(jedis), readme.withOwnJars(jedis.jars())
                        .contextParam(KEY_PREFIX, redis.key(line.name() + ":legacy:" + jedis.version() + ":")));
                Path servlet = LegacyApp.compiled(line.namespace(), jedis, bases.resolve("legacy-servlets"));
                deploy(server, allInOne(jedis), readme.allInOne(allInOneJars()).withOwnJars(jedis.jars())
                        .withServlet(LegacyApp.declaration(redis.host(), redis.port(), visits(line.namespace(), jedis)),
                                servlet)
                        .contextParam(KEY_PREFIX, redis.key(line.namespace() + ":all:" + jedis.version() + ":"))
                        .contextParam("ratelimit.redisTimeout", "5s"));
            }
        }
        Path jaxrsClasses = JaxrsApp.compiled(jaxrsJars(), jaxrsJars(), bases.resolve("jaxrs-classes"));
        for (StandaloneServer server : servers.values()) {
            if (server.line().namespace() == Namespace.JAVAX) {
                deploy(server, "jaxrs", readme.withOwnJars(jaxrsJars()).withServlet(JaxrsApp.declaration(), jaxrsClasses)
                        .contextParam(KEY_PREFIX, redis.key("jaxrs:")).contextParam("ratelimit.redisTimeout", "5s"));
            }
        }
        for (StandaloneServer server : servers.values()) {
            ServerLine line = server.line();
            if (line.descriptor() == Descriptor.SERVLET_3_0) {
                deploy(server, "servlet30", readme.withServlet(Servlet30App.declaration(),
                                Servlet30App.compiled(line, bases.resolve("servlet30-classes")))
                        .contextParam(KEY_PREFIX, redis.key(line.name() + ":servlet30:")));
            }
        }
        for (Map.Entry<ServerLine, Namespace> target : QUICK_START_SERVERS.entrySet()) {
            Namespace namespace = target.getValue();
            StandaloneServer server = servers.get(target.getKey());
            // The one change to README's web.xml: a key prefix of this run's own, as every app here has.
            Path war = quickStart.writeWar(server.staging(), "quickstart", namespace, quickStartLibs.get(namespace));
            Path webXml = war.resolve("WEB-INF/web.xml");
            String written = Files.readString(webXml);
            String header = written.lines().filter(line -> line.startsWith("<web-app ")).findFirst().orElseThrow();
            Files.writeString(webXml, written.replace(header, header + "\n  <context-param><param-name>" + KEY_PREFIX
                    + "</param-name><param-value>" + redis.key("quickstart:" + namespace + ":")
                    + "</param-value></context-param>"));
            server.deploy(war);
        }
        for (StandaloneServer server : servers.values()) {
            Map<String, Supplier<Boolean>> serves = new LinkedHashMap<>();
            for (String app : serving(server.line())) {
                serves.put(app, () -> status(server.app(app).resolve("api/health")) == 200);
            }
            if (server.line().namespace() == Namespace.JAVAX) {
                serves.put("jaxrs", () -> status(server.app("jaxrs").resolve("rest/orders/free")) == 200);
            }
            if (QUICK_START_SERVERS.containsKey(server.line())) {
                // Another address than the test's: every request to the app counts, and README's limit is 5.
                serves.put("quickstart", () -> {
                    int status = Http.statusOfFormPostFrom("127.0.0.3", server.app("quickstart"), "x=1");
                    return status > 0 && status != 404 && status != 503;
                });
            }
            awaitServing(server, serves);
        }
    }

    /** The apps of {@code line} that serve {@code api/health}. */
    private static List<String> serving(ServerLine line) {
        List<String> serving = new ArrayList<>(List.of("readme", "exact", "lifecycle"));
        for (JedisLine jedis : JedisLine.values()) {
            serving.add(allInOne(jedis));
        }
        if (line.descriptor() == Descriptor.SERVLET_3_0) {
            serving.add("servlet30");
        }
        return serving;
    }

    /**
     * Polls each app of {@code serves} until it serves. A server deploys the webapps given to it at
     * once one after another (Tomcat's deployer thread, Jetty's scanner), as slowly as the machine's
     * load makes it: the deadline is on progress, {@link #DEPLOY_DEADLINE} without one more app
     * serving, not on the whole queue.
     */
    private static void awaitServing(StandaloneServer server, Map<String, Supplier<Boolean>> serves) {
        Map<String, Supplier<Boolean>> waiting = new LinkedHashMap<>(serves);
        long deadline = System.nanoTime() + DEPLOY_DEADLINE.toNanos();
        while (true) {
            if (waiting.values().removeIf(Supplier::get)) {
                deadline = System.nanoTime() + DEPLOY_DEADLINE.toNanos();
            }
            if (waiting.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(server + " does not serve " + waiting.keySet() + ": none more of "
                        + serves.keySet() + " served in " + DEPLOY_DEADLINE + "; it printed:\n" + server.log());
            }
            StandaloneServer.sleep(100);
        }
    }

    @AfterAll
    static void stopEveryServer() throws Exception {
        for (StandaloneServer server : servers.values()) {
            server.close();
        }
        for (ServerLine line : ServerLine.values()) {
            AclUsers.drop(redis, user(line, "readme"));
            AclUsers.drop(redis, user(line, "lifecycle"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void readmeWebXmlLimitsTheApiAndLeavesHealthAlone(ServerLine line) {
        URI app = servers.get(line).app("readme");

        HttpResponse<String> orders = Http.get(app.resolve("api/orders"));
        assertThat(orders.statusCode()).isEqualTo(200);
        assertThat(orders.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=100;w=60");
        assertThat(orders.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"api\";r=99;"));

        HttpResponse<String> health = Http.get(app.resolve("api/health"));
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.headers().firstValue("RateLimit")).as("excludePaths").isEmpty();
        assertThat(connections(user(line, "readme"))).as(() -> "the webapp's pool uses REDIS_URL's user: "
                + clients() + servers.get(line).log()).isPositive();
    }

    /**
     * README's login rule ({@code ip+param:user}, burst 3) against a browser's form post, the user
     * in the body: each address and user pair has its own 3, whatever the server answers a post.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void readmesLoginRuleLimitsAFormPostPerAddressAndUser(ServerLine line) {
        URI login = servers.get(line).app("readme").resolve("login");
        for (String address : List.of("127.0.0.1", "127.0.0.2")) {
            for (String user : List.of("alice", "bob")) {
                for (int i = 0; i < 3; i++) {
                    assertThat(Http.statusOfFormPostFrom(address, login, "user=" + user + "&password=wrong"))
                            .as("post %d of %s from %s on %s", i + 1, user, address, line)
                            .isNotEqualTo(429).isLessThan(500);
                }
                assertThat(Http.statusOfFormPostFrom(address, login, "user=" + user + "&password=wrong"))
                        .as("%s from %s spent its burst of 3 on %s", user, address, line).isEqualTo(429);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Namespace.class)
    void exactAcrossTheServersOfANamespaceAndEachRefusesWithProblemJson(Namespace namespace) {
        List<StandaloneServer> sharing = servers.values().stream().filter(s -> s.line().namespace() == namespace).toList();
        assertThat(sharing).as("servers of " + namespace).hasSizeGreaterThanOrEqualTo(2);

        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            URI target = sharing.get(i % sharing.size()).app("exact").resolve("api/orders");
            answers.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> response = answer.join();
            statuses.merge(response.statusCode(), 1, Integer::sum);
            assertThat(response.headers().firstValue("RateLimit-Policy"))
                    .as(() -> response + " " + response.headers().map() + sharing.stream().map(StandaloneServer::log).toList())
                    .hasValue("\"api\";q=100;w=60");
        }
        assertThat(statuses).as(sharing + " share one bucket").isEqualTo(Map.of(200, 100, 429, BURST - 100));
        assertThat(sharing).as("no decision left to onRedisFailure").allSatisfy(
                server -> assertThat(server.log()).doesNotContain("cannot reach Redis"));

        for (StandaloneServer server : sharing) {
            HttpResponse<String> refused = Http.get(server.app("exact").resolve("api/orders"));
            assertThat(refused.statusCode()).as(server.toString()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).as(server + " Retry-After")
                    .hasValueSatisfying(seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 60L));
            assertThat(refused.headers().firstValue("Content-Type")).as(server + " Content-Type")
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(refused.body()).as(server + " body").contains("\"status\":429");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void aBadInitParamRefusesTheWebappAndTheLogNamesTheValue(ServerLine line) {
        StandaloneServer server = servers.get(line);
        eventually(server + " logs the refused init-param", server::log, log -> log.contains("sliding-logg"), server);

        assertThat(server.log()).as("names the setting too").containsPattern("algorithm[^\\n]*sliding-logg");
        int typo = status(server.app("typo").resolve("api/orders"));
        assertThat(typo).as("a webapp that failed to start is not served").isIn(404, 503);
        assertThat(status(server.app("readme").resolve("api/health"))).as("the server's other webapps are").isEqualTo(200);
    }

    /**
     * Issue 38: a legacy WAR carrying its own Jedis 2.9 (with commons-pool2 2.4.2), 3 or 4 beside
     * the filter's plain jars. Before, it failed deep in the pool (NoSuchMethodError on Tomcat,
     * VerifyError on Jetty, by the server's jar order); now the filter refuses with one line naming
     * the jars and the all-in-one jar.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void aWarWithItsOwnOldJedisIsRefusedWithOneLineNamingTheJars(ServerLine line) {
        StandaloneServer server = servers.get(line);
        for (JedisLine jedis : JedisLine.values()) {
            String clash = "[REDIS_CLIENT_CLASH]";
            eventually(server + " logs the clash with " + jedis, server::log,
                    log -> log.lines().anyMatch(l -> l.contains(clash) && l.contains(jedis.jar() + " (" + jedis.version() + ")")),
                    server);
            assertThat(status(server.app(legacy(jedis)).resolve("api/orders"))).as("not served half-limited beside "
                    + jedis).isIn(404, 503);
        }
        assertThat(server.log()).contains("commons-pool2-2.4.2.jar (2.4.2)").containsPattern("jedis-7[0-9.]*\\.jar")
                .contains("ratelimit-all").doesNotContain("NoSuchMethodError").doesNotContain("VerifyError");
        assertThat(status(server.app("readme").resolve("api/health"))).as("the server's other webapps are").isEqualTo(200);
    }

    static List<Arguments> namespacesAndJedisLines() {
        List<Arguments> cases = new ArrayList<>();
        for (Namespace namespace : Namespace.values()) {
            for (JedisLine jedis : JedisLine.values()) {
                cases.add(Arguments.of(namespace, jedis));
            }
        }
        return cases;
    }

    /**
     * Issue 38, done: the same legacy WAR with the all-in-one jar instead of the plain jars deploys
     * on every server, its own servlet counts visits through its own old Jedis, and README's limit
     * in front of that servlet stays exact across all the servers of the namespace: 100 of 130
     * admitted, each admitted request counted once by the application, none refused counted.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("namespacesAndJedisLines")
    void withTheAllInOneJarTheWarsOwnJedisWorksAndTheLimitIsExactAcrossServers(Namespace namespace, JedisLine jedis) {
        List<StandaloneServer> sharing = servers.values().stream().filter(s -> s.line().namespace() == namespace).toList();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            URI target = sharing.get(i % sharing.size()).app(allInOne(jedis)).resolve("api/visits");
            answers.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<Long> counted = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> response = answer.join();
            statuses.merge(response.statusCode(), 1, Integer::sum);
            if (response.statusCode() == 200) {
                counted.add(Long.parseLong(response.body().trim()));
            }
        }
        assertThat(statuses).as(() -> sharing + " with " + jedis + ": "
                + sharing.stream().map(StandaloneServer::log).toList()).isEqualTo(Map.of(200, 100, 429, BURST - 100));
        assertThat(counted).as("the application's own counter, through " + jedis).doesNotHaveDuplicates()
                .allSatisfy(n -> assertThat(n).isBetween(1L, 100L));
        assertThat(redis.client().get(visits(namespace, jedis))).as("visits the application counted").isEqualTo("100");
        assertThat(sharing).as("no clash line for the all-in-one WARs, no decision left to onRedisFailure")
                .allSatisfy(server -> assertThat(server.log()).doesNotContain("cannot reach Redis")
                        .doesNotContain("NoSuchMethodError").doesNotContain("VerifyError"));
    }

    /**
     * Issue 39: README's quick start, followed as written: its build command (run by module
     * quick-start) filled {@code lib/} with exactly the jars README lists, its web.xml deployed with
     * them into the servers it names (Tomcat 9, Jetty 12), and the sixth request of a client is
     * refused with {@code Retry-After}, answered as README shows.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ServerLine.class, names = {"TOMCAT_9", "JETTY_12_EE10"})
    void readmesQuickStartRefusesTheSixthRequestAsItShows(ServerLine line) throws IOException {
        StandaloneServer server = servers.get(line);
        List<HttpResponse<String>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(Http.get(server.app("quickstart")));
        }
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> answer = answers.get(i);
            assertThat(answer.statusCode()).as(server + " answer " + (i + 1) + ": " + server.log()).isEqualTo(200);
            assertThat(answer.body()).contains("the application");
            assertThat(answer.headers().firstValue("RateLimit-Policy")).hasValue("\"ratelimit\";q=5;w=60");
            String remaining = "\"ratelimit\";r=" + (4 - i) + ";";
            assertThat(answer.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).startsWith(remaining));
        }
        HttpResponse<String> sixth = answers.get(5);
        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 60L));
        assertThat(sixth.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));

        // What README shows: the first answer, then the sixth.
        List<String> shown = QuickStart.fromReadme().shownAnswers();
        HttpResponse<String> showing = answers.get(0);
        for (String line1 : shown) {
            if (line1.startsWith("HTTP/1.1 ")) {
                showing = line1.equals("HTTP/1.1 429") ? sixth : answers.get(0);
                assertThat(showing.statusCode()).as("README shows " + line1).isEqualTo(Integer.parseInt(line1.substring(9)));
            } else {
                String name = line1.substring(0, line1.indexOf(':'));
                assertThat(showing.headers().firstValue(name)).as("README shows " + line1 + " on " + server)
                        .hasValue(line1.substring(name.length() + 1).strip());
            }
        }
        // The jakarta build has the jakarta filter jar where README's javax list names the javax one.
        List<String> jars = QuickStart.names(server.base().resolve("webapps/quickstart/WEB-INF/lib")).stream()
                .map(jar -> jar.replace("ratelimit-filter-0", "ratelimit-filter-javax-0")).toList();
        assertThat(jars).as("README's list of the jars a WAR takes").containsExactlyInAnyOrderElementsOf(readmeJarList());
    }

    /** README's hand-copy list of the jars, which its quick start's lib/ must hold exactly. */
    private static List<String> readmeJarList() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("for `filter-javax` today that is");
        assertThat(start).as("README lists the jars").isPositive();
        String list = readme.substring(start, readme.indexOf("(a test holds this list", start));
        List<String> jars = new ArrayList<>();
        Matcher jar = Pattern.compile("`([^`]+\\.jar)`").matcher(list);
        while (jar.find()) {
            jars.add(jar.group(1));
        }
        return jars;
    }

    /**
     * The javax JAX-RS adapter on Jersey 2 in every javax server (Tomcat 7, 8.5 and 9 and Jetty 9.4 on
     * a real Java 8 in {@code .ci/run}): an unannotated method gets no headers, the annotated one is
     * exact across all of them and refuses with the filter's answer, and a hostile key is decided.
     */
    @Test
    void jaxrsOnJersey2IsExactAcrossTheJavaxServers() {
        List<StandaloneServer> javax = servers.values().stream().filter(s -> s.line().namespace() == Namespace.JAVAX)
                .toList();
        for (StandaloneServer server : javax) {
            HttpResponse<String> free = Http.get(server.app("jaxrs").resolve("rest/orders/free"));
            assertThat(free.statusCode()).as(server + " free").isEqualTo(200);
            assertThat(free.headers().firstValue("RateLimit")).as(server + " unannotated").isEmpty();
            HttpResponse<String> hostile = Http.get(server.app("jaxrs").resolve("rest/orders"), "X-Client",
                    "x".repeat(6000) + "\u00e9");
            assertThat(hostile.statusCode()).as(server + " a hostile key is decided: " + server.log()).isEqualTo(200);
        }
        Map<Integer, Integer> statuses = Http.concurrentStatuses(BURST,
                i -> javax.get(i % javax.size()).app("jaxrs").resolve("rest/orders"), "X-Client", "burst");
        assertThat(statuses).as(() -> javax + " share one bucket: " + javax.stream().map(StandaloneServer::log).toList())
                .isEqualTo(Map.of(200, JaxrsApp.LIMIT, 429, BURST - JaxrsApp.LIMIT));
        for (StandaloneServer server : javax) {
            HttpResponse<String> refused = Http.get(server.app("jaxrs").resolve("rest/orders"), "X-Client", "burst");
            assertThat(refused.statusCode()).as(server.toString()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).as(server + " Retry-After")
                    .hasValueSatisfying(seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 3600L));
            assertThat(refused.headers().firstValue("Content-Type")).as(server + " Content-Type")
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        }
    }

    /** The lines whose users write a Servlet 3.0 web.xml: Tomcat 7. */
    static List<ServerLine> servlet30Lines() {
        return Arrays.stream(ServerLine.values()).filter(line -> line.descriptor() == Descriptor.SERVLET_3_0)
                .toList();
    }

    /**
     * Servlet 3.0 (Tomcat 7): README's login rule reads {@code user} from the form body, and the
     * login servlet still reads the form whole through {@code getReader()}. Both failed there with a
     * 500 before: the length of the body was asked with Servlet 3.1's {@code getContentLengthLong}
     * (a NoSuchMethodError), and the stream that gives the body back could not be loaded without
     * 3.1's {@code ReadListener}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servlet30Lines")
    void onServlet30AFormReadForTheKeyReachesTheServletWhole(ServerLine line) {
        StandaloneServer server = servers.get(line);
        URI login = server.app("servlet30").resolve("login");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> read = Http.postForm(login, "user=carol&password=wrong");
            assertThat(read.statusCode()).as(() -> "post " + read + " " + read.body() + server.log()).isEqualTo(200);
            assertThat(read.body()).isEqualTo("read user=carol&password=wrong");
        }
        assertThat(Http.postForm(login, "user=carol&password=wrong").statusCode()).as("carol spent her burst of 3")
                .isEqualTo(429);
        assertThat(Http.postForm(login, "user=dave&password=wrong").body()).as("another user, the same address")
                .isEqualTo("read user=dave&password=wrong");
        assertThat(server.log()).as("no request ended in an exception").doesNotContain("threw exception")
                .doesNotContain("NoSuchMethodError").doesNotContain("NoClassDefFoundError")
                .doesNotContain("ClassNotFoundException");
    }

    /**
     * Servlet 3.0 (Tomcat 7): the docs' "wait for the turn" web.xml as written. Of 15 requests at
     * once against its 10 per 2 s, none is refused: those over the limit are suspended with the
     * container's {@code AsyncContext} and dispatched again at their turn ({@code X-RateLimit-Delay}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servlet30Lines")
    void onServlet30AMaxDelayRequestWaitsForItsTurnInsteadOfA429(ServerLine line) {
        StandaloneServer server = servers.get(line);
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            answers.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(server.app("servlet30").resolve("export/orders"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<Long> delays = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> response = answer.join();
            assertThat(response.statusCode()).as(() -> response + " " + response.body() + server.log()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("/export");
            response.headers().firstValue("X-RateLimit-Delay").ifPresent(delay -> delays.add(Long.parseLong(delay)));
        }
        assertThat(delays).as("requests that waited for their turn, in ms").isNotEmpty()
                .allSatisfy(delay -> assertThat(delay).isBetween(1L, 10_000L));
        assertThat(server.log()).doesNotContain("NOT_ASYNC_SUPPORTED").doesNotContain("NO_ASYNC_DISPATCHER")
                .as("no request ended in an exception").doesNotContain("threw exception");
    }

    /**
     * Servlet 3.0 (Tomcat 7): README's "charge after" filter in front of a report that says it cost
     * 5: the next request finds the 4 more charged after the first response; the status page tells.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servlet30Lines")
    void onServlet30AnAfterChargeAndTheStatusPageWork(ServerLine line) {
        URI app = servers.get(line).app("servlet30");
        HttpResponse<String> first = Http.get(app.resolve("report"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(r -> assertThat(r).startsWith("\"charge\";r=99;"));
        HttpResponse<String> next = Http.get(app.resolve("report"));
        assertThat(next.headers().firstValue("RateLimit")).as("4 charged after the first, 1 taken by this one")
                .hasValueSatisfying(r -> assertThat(r).startsWith("\"charge\";r=" + (100 - Servlet30App.REPORT_USAGE - 1) + ";"));

        HttpResponse<String> status = Http.get(app.resolve("ratelimit/status?format=json"));
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"afterCharges\":2,\"permitsCharged\":8");
    }

    /**
     * The Java 8 lines (Tomcat 7, 8.5 and 9, Jetty 9.4) run on the Java 8 JVM the build was given
     * ({@code .ci/run} gives a real OpenJDK 8), the others on the build's own: what each printed.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void eachLineRunsOnTheJvmTheBuildChose(ServerLine line) {
        StandaloneServer server = servers.get(line);
        String expected = line.onJava8() ? "1.8.0_" : System.getProperty("java.version");
        assertThat(eventually(server + " prints its JVM", server::jvmVersion, version -> version != null, server))
                .startsWith(expected);
    }

    /**
     * Each server on its own, all at once ({@code CONCURRENT}): an undeploy waits for the server's next
     * scan of {@code webapps/} and for Redis to drop the connections, and each line's wait is its own
     * (its server, its Redis user, its webapp, which no other test uses).
     */
    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void undeployClosesEveryRedisConnection(ServerLine line) throws IOException {
        StandaloneServer server = servers.get(line);
        String user = user(line, "lifecycle");
        assertThat(status(server.app("lifecycle").resolve("api/orders"))).isEqualTo(200);
        assertThat(connections(user)).as("connections of the deployed webapp").isPositive();
        String before = clientsOf(user);

        server.undeploy("lifecycle");

        eventually(server + " undeploys", () -> status(server.app("lifecycle").resolve("api/health")),
                status -> status == 404, server);
        try {
            eventually("connections of " + user + " after undeploy", () -> connections(user), count -> count == 0, server);
        } catch (AssertionError stillOpen) {
            String after = clientsOf(user);
            String afterGc = server.collectGarbage() + clientsOf(user);
            throw new AssertionError(stillOpen.getMessage() + "\nits connections before the undeploy:\n" + before
                    + "\nand after:\n" + after + "\nand after a GC of the server:\n" + afterGc
                    + "\nthe server's threads:\n" + server.threadDump(), stillOpen);
        }
        if (!line.isJetty()) {
            // Tomcat looks for what a webapp left behind when it stops it; Jetty does not.
            assertThat(server.log()).as("Tomcat's leak detection").doesNotContain("appears to have started a thread")
                    .doesNotContain("failed to stop it").doesNotContain("memory leak");
        }
    }

    private static void deploy(StandaloneServer server, String name, SmokeWar war) throws IOException {
        server.deploy(war.writeTo(server.staging(), name, server.line().descriptor(), webappLib()));
    }

    private static String legacy(JedisLine jedis) {
        return "legacy-" + jedis.name().toLowerCase(Locale.ROOT);
    }

    private static String allInOne(JedisLine jedis) {
        return "all-" + jedis.name().toLowerCase(Locale.ROOT);
    }

    /** Where the application's own servlet counts its visits, per namespace and Jedis line. */
    private static String visits(Namespace namespace, JedisLine jedis) {
        return redis.key(namespace + ":visits:" + jedis.version());
    }

    private static Path jaxrsJars() {
        return Path.of(System.getProperty("ratelimit.smoke.jaxrsJavax", "target/jaxrs-javax"));
    }

    private static Path allInOneJars() {
        return Path.of(System.getProperty("ratelimit.smoke.allInOne", "target/all-in-one"));
    }

    private static Path webappLib() {
        return Path.of(System.getProperty("ratelimit.smoke.webappLib", "target/webapp-lib"));
    }

    private static int status(URI uri) {
        try {
            return Http.get(uri).statusCode();
        } catch (UncheckedIOException refused) {
            return -1;
        }
    }

    /** Polls {@code value} until {@code done}; fails with the last value and the server's log. */
    private static <T> T eventually(String what, Supplier<T> value, Predicate<T> done, StandaloneServer server) {
        long deadline = System.nanoTime() + DEPLOY_DEADLINE.toNanos();
        T last = value.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": still " + last + " after " + DEPLOY_DEADLINE + "; " + server
                        + " printed:\n" + server.log());
            }
            StandaloneServer.sleep(100);
            last = value.get();
        }
        return last;
    }

    private static String user(ServerLine line, String app) {
        return "smoke-" + line.name().toLowerCase(Locale.ROOT) + "-" + app + "-" + RUN;
    }

    private static String uri(String user) {
        return AclUsers.uri(redis, user, PASSWORD);
    }

    /** Connections Redis has open for {@code user}, from {@code CLIENT LIST}. */
    private static long connections(String user) {
        return clientsOf(user).lines().count();
    }

    private static String clientsOf(String user) {
        return clients().lines().filter(c -> c.contains(" user=" + user + " ")).collect(Collectors.joining("\n"));
    }

    private static String clients() {
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            return admin.clientList();
        }
    }
}
