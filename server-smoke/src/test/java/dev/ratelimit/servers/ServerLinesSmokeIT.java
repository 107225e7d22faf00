package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.ServerLine.Namespace;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.testing.AclUsers;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * README's web.xml, in a WAR built as README says, deployed into the standalone distribution of
 * every server line the embedded suites leave out: Tomcat 8.5, Jetty 10 and Jetty 12 ee8 (javax),
 * Tomcat 10.0 and 10.1, Jetty 11 and Jetty 12 ee9 (jakarta). Each server is its own JVM with its own Redis
 * ACL user, so Redis' {@code CLIENT LIST} tells whose connections are whose; all share one Redis.
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

    @BeforeAll
    static void startEveryServerAndDeploy() throws Exception {
        for (ServerLine line : ServerLine.values()) {
            AclUsers.create(redis, user(line, "readme"), PASSWORD, "+@all");
            AclUsers.create(redis, user(line, "lifecycle"), PASSWORD, "+@all");
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
            deploy(server, "legacy", readme.withOwnJars(oldRedisClient())
                    .contextParam(KEY_PREFIX, redis.key(line.name() + ":legacy:")));
        }
        for (StandaloneServer server : servers.values()) {
            for (String app : List.of("readme", "exact", "lifecycle")) {
                eventually(server + " serves " + app, () -> status(server.app(app).resolve("api/health")),
                        status -> status == 200, server);
            }
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
     * Issue 38: a legacy WAR carrying its own jedis-2.9.0 and commons-pool2-2.4.2 beside the filter's
     * jars. Before, it failed deep in the pool (NoSuchMethodError on Tomcat, VerifyError on Jetty,
     * by the server's jar order); now the filter refuses with one line naming the jars.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ServerLine.class)
    void aWarWithItsOwnOldJedisIsRefusedWithOneLineNamingTheJars(ServerLine line) {
        StandaloneServer server = servers.get(line);
        eventually(server + " logs the clash", server::log, log -> log.contains("[REDIS_CLIENT_CLASH]"), server);

        assertThat(server.log()).contains("jedis-2.9.0.jar (2.9.0)").contains("commons-pool2-2.4.2.jar (2.4.2)")
                .containsPattern("jedis-7[0-9.]*\\.jar")
                .doesNotContain("NoSuchMethodError").doesNotContain("VerifyError");
        assertThat(status(server.app("legacy").resolve("api/orders"))).as("not served half-limited").isIn(404, 503);
        assertThat(status(server.app("readme").resolve("api/health"))).as("the server's other webapps are").isEqualTo(200);
    }

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
        server.deploy(war.writeTo(server.staging(), name, server.line().namespace(), webappLib()));
    }

    private static Path oldRedisClient() {
        return Path.of(System.getProperty("ratelimit.smoke.oldRedisClient", "target/old-redis-client"));
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
