package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * README's login protection, deployed as written (only the Redis address and timeout are this test's):
 * {@code countStatus=401}, 5 per window. Failed logins count, successful ones are given back, a
 * client over its quota is denied up front with 429.
 */
class LoginProtectionFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** The init-params of the README's login snippet. */
    private static Map<String, String> readmeParams() throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml login protection");
        assertThat(params).containsEntry("countStatus", "401").containsEntry("limit", "5");
        return params;
    }

    /**
     * Waits until the successes' refunds have all landed: each is sent after its answer is complete,
     * so a client that fires its next request at once can meet the previous one still counted.
     */
    private static void untilRefunded(String keyPrefix) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (redis.client().keys(keyPrefix + "*").stream().filter(key -> !PolicyKeys.isPolicyKey(key))
                .mapToLong(key -> redis.client().zcard(key)).sum() > 0) {
            assertThat(System.nanoTime()).as("refunds landed within 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static URI deploy(Kind kind, String path, String keyPrefix) throws Exception {
        Map<String, String> params = readmeParams();
        params.put("redisUri", redis.uri());
        // What these tests claim is one exact quota, not the default timeout: on a loaded machine, 25
        // requests at once on one node can wait longer than 200 ms for a pooled connection, and
        // onRedisFailure=allow then rightly lets that request through uncounted (seen at load 21).
        params.put("redisTimeout", "5s");
        params.put("keyPrefix", keyPrefix);
        return containers.get(kind).deploy(AppDescriptor.builder(path)
                .filter("login", RateLimitFilter.class.getName(), params, "/login")
                .servlet("login", LoginServlet.class.getName(), "/login").build()).resolve(path + "/login");
    }

    private static int login(URI app, String password) {
        return Http.get(URI.create(app + "?password=" + password)).statusCode();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void fiveFailedLoginsLockTheClientOutAHundredSuccessfulOnesNever(Kind kind) throws Exception {
        URI app = deploy(kind, "/login-" + kind, redis.keyPrefix() + kind + ":");
        for (int i = 0; i < 100; i++) {
            assertThat(login(app, "good")).as("success %d costs nothing", i).isEqualTo(200);
        }
        untilRefunded(redis.keyPrefix() + kind + ":");
        for (int i = 0; i < 5; i++) {
            assertThat(login(app, "bad")).as("failure %d counts", i).isEqualTo(401);
        }
        assertThat(login(app, "bad")).as("denied up front").isEqualTo(429);
        assertThat(login(app, "good")).as("even the right password, until the window frees up").isEqualTo(429);
    }

    @Test
    void fiftyConcurrentFailuresOnTwoContainersAdmitNoMoreThanFive() throws Exception {
        String prefix = redis.keyPrefix() + "shared:";
        URI tomcat = deploy(Kind.TOMCAT, "/login-shared", prefix);
        URI jetty = deploy(Kind.JETTY, "/login-shared", prefix);
        Map<Integer, Integer> statuses = Http.concurrentStatuses(50,
                i -> URI.create((i % 2 == 0 ? tomcat : jetty) + "?password=bad"));
        assertThat(statuses).as("one quota in Redis for both nodes").containsExactlyInAnyOrderEntriesOf(
                Map.of(401, 5, 429, 45));
    }
}
