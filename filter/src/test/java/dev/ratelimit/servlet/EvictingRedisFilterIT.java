package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.list;
import static dev.ratelimit.servlet.MiniJson.map;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import dev.ratelimit.testing.ServerProduct;
import dev.ratelimit.testing.ServerStrategy;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A webapp whose Redis may evict the limiter's keys ({@code maxmemory-policy volatile-lru} with
 * {@code maxmemory} set), on each container: its deployment logs one ERROR line with
 * {@code [EVICTING_REDIS]} for its two policies together, which requests and the status page do not
 * repeat, and the page's verdict for each policy is the warning naming {@code maxmemory-policy}; the
 * line and the page name the server as its INFO server says ({@code Redis 7.0.15}, or Valkey's own
 * version on Valkey). On a Redis of this class's own, whose memory settings it changes.
 */
class EvictingRedisFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.forced(ServerStrategy.PATH, ServerStrategy.EMBEDDED);

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @BeforeAll
    static void evictingRedis() {
        redis.client().configSet("maxmemory-policy", "volatile-lru");
        redis.client().configSet("maxmemory", "1gb");
    }

    /** How the limiter must name the server: {@code Redis 7.0.15}, {@code Valkey 9.1.2}, read apart from the library. */
    private static String server() {
        return ServerProduct.named(redis.client().info("server"));
    }

    @AfterAll
    static void stop() {
        containers.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theDeploymentLogsOneErrorLineAndTheStatusPageWarnsNamingTheSettingToChange(Kind kind) throws Exception {
        String path = "/evicting" + apps.incrementAndGet();
        List<Integer> statuses = new ArrayList<>();
        String[] json = new String[1];
        String[] html = new String[1];
        String log = CapturedLog.during(() -> {
            URI app = containers.get(kind).deploy(AppDescriptor.builder(path)
                    .filter("api", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "2", "window", "1m",
                            "policyName", "api" + apps.get()), "/api/*")
                    .filter("search", RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "100",
                            "window", "1m", "policyName", "search" + apps.get()), "/search/*")
                    .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/ratelimit/status")
                    .build());
            for (int i = 0; i < 3; i++) {
                statuses.add(Http.get(app.resolve("api/items")).statusCode());
                statuses.add(Http.get(app.resolve("search/q")).statusCode());
            }
            json[0] = Http.get(app.resolve("ratelimit/status?format=json")).body();
            html[0] = Http.get(app.resolve("ratelimit/status")).body();
        });

        assertThat(statuses).as("the limits work as configured meanwhile").containsExactly(200, 200, 200, 200, 429, 200);
        String server = server();
        String product = server.substring(0, server.indexOf(' '));
        String line = "ERROR dev.ratelimit.RedisStore - " + server + " at " + redis.uri() + " [EVICTING_REDIS]: maxmemory-policy"
                + " is volatile-lru with maxmemory 1073741824 bytes, so " + product + " may evict the rate limiter's keys";
        assertThat(CapturedLog.lines(log, line)).as("one line for the webapp's Redis, not one per policy or request: " + log)
                .isEqualTo(1);
        assertThat(CapturedLog.lines(log, "EVICTING_REDIS")).as(log).isEqualTo(1);
        Map<String, Object> page = map(MiniJson.parse(json[0]));
        for (Object policy : list(page.get("policies"))) {
            Map<String, Object> verdict = map(map(policy).get("verdict"));
            assertThat(verdict.get("level")).isEqualTo("warning");
            assertThat((String) verdict.get("text")).startsWith("Redis may evict the limiter's keys (EVICTING_REDIS): "
                    + server + " at " + redis.uri() + " has maxmemory-policy volatile-lru").contains(
                    "Set maxmemory-policy noeviction on that " + product);
            Map<String, Object> eviction = map(map(list(map(policy).get("limiters")).get(0)).get("redisEviction"));
            assertThat(eviction).containsEntry("maxmemoryPolicy", "volatile-lru").containsEntry("evictedKeys", 0L)
                    .containsEntry("server", server);
            assertThat(list(eviction.get("nodes"))).singleElement().satisfies(node -> assertThat(map(node))
                    .containsEntry("server", server).containsKey("node"));
        }
        assertThat(html[0]).contains("<tr><th>Redis server</th><td>" + server + "</td></tr>");
        assertThat(list(page.get("overview"))).allSatisfy(row -> assertThat(map(row)).containsEntry("level", "warning"));
        containers.get(kind).undeploy(path);
    }
}
