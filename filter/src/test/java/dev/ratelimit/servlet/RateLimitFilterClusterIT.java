package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Protocol;

/**
 * Several app nodes (a Tomcat and a Jetty) sharing one Redis, and what a webapp leaves behind in
 * Redis when it stops.
 */
class RateLimitFilterClusterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FILTER = RateLimitFilter.class.getName();

    private static Map<String, String> params(String... pairs) {
        return FilterParams.of(redis, pairs);
    }

    @Test
    void aTomcatAndAJettySharingOneRedisAdmitExactlyTheLimitInTotal() throws Exception {
        try (ServletContainer tomcat = ServletContainer.tomcat(); ServletContainer jetty = ServletContainer.jetty()) {
            Map<String, String> params = params("limit", "40", "window", "1h", "key", "header:X-Client",
                    "policyName", "shared");
            URI onTomcat = tomcat.deploy(AppDescriptor.builder("/shop").filter("api", FILTER, params, "/*").build());
            URI onJetty = jetty.deploy(AppDescriptor.builder("/shop").filter("api", FILTER, params, "/*").build());

            List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                URI node = i % 2 == 0 ? onTomcat : onJetty;
                HttpRequest request = HttpRequest.newBuilder(node.resolve("orders")).header("X-Client", "one")
                        .timeout(Duration.ofSeconds(30)).build();
                answers.add(Http.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.discarding()));
            }
            int admitted = 0;
            int denied = 0;
            for (CompletableFuture<HttpResponse<Void>> answer : answers) {
                int status = answer.get().statusCode();
                if (status == 200) {
                    admitted++;
                } else if (status == 429) {
                    denied++;
                }
            }
            assertThat(admitted).isEqualTo(40);
            assertThat(denied).isEqualTo(160);
        }
    }

    private static long ourConnections() {
        Object list = redis.client().sendCommand(Protocol.Command.CLIENT, "LIST");
        return new String((byte[]) list, StandardCharsets.UTF_8).lines().filter(line -> line.contains(" name=ratelimit ")).count();
    }

    /**
     * Our connections once Redis has seen them close: a closed socket leaves CLIENT LIST on Redis'
     * next event-loop turn, so wait (up to 5 s) for the expected count rather than read it once.
     */
    static long connectionsOnceSettled(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        long count = ourConnections();
        while (count != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            count = ourConnections();
        }
        return count;
    }

    @Test
    void filtersWithTheSameRedisShareOnePoolAndUndeployClosesIt() throws Exception {
        try (ServletContainer tomcat = ServletContainer.tomcat(); ServletContainer jetty = ServletContainer.jetty()) {
            for (ServletContainer container : List.of(tomcat, jetty)) {
                // Three filters, two distinct connection settings: the pool size tells them apart.
                AppDescriptor app = AppDescriptor.builder("/two")
                        .filter("perIp", FILTER, params("limit", "100", "window", "1m"), "/*")
                        .filter("perKey", FILTER, params("limit", "100", "window", "1m", "key", "header:K"), "/*")
                        .filter("other", FILTER, params("limit", "100", "window", "1m", "redisPoolSize", "4"), "/*")
                        .build();
                URI uri = container.deploy(app);
                List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    answers.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(uri).header("K", "k").build(),
                            HttpResponse.BodyHandlers.discarding()));
                }
                for (CompletableFuture<HttpResponse<Void>> answer : answers) {
                    assertThat(answer.get().statusCode()).isEqualTo(200);
                }
                assertThat(ourConnections()).as("%s: connections while serving", container.name()).isPositive();
                assertThat(ourConnections()).as("%s: two pools, at most 32 + 4", container.name())
                        .isLessThanOrEqualTo(36);

                container.undeploy("/two");

                assertThat(connectionsOnceSettled(0)).as("%s: connections after undeploy", container.name()).isZero();
                assertThat(Thread.getAllStackTraces().keySet()).as("%s: threads after undeploy", container.name())
                        .noneMatch(thread -> thread.getName().contains("commons-pool")
                                || thread.getName().toLowerCase().contains("jedis"));
            }
        }
    }
}
