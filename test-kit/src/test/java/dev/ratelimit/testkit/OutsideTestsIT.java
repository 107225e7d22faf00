package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.RateLimitStatusServlet;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import dev.ratelimit.testing.log.LogRecorder;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A webapp that took {@code redisUri=test-only-redis://…} out of its tests, with the kit in the WAR
 * and no test of the kit running (no extension, no rule, no test code naming that Redis): it
 * starts, logs one ERROR for its store (two policies share it), and its status page shows every
 * such policy's verdict as an alert naming {@code redisUri}.
 */
class OutsideTestsIT {

    @Test
    void aDeploymentOnTheKitsRedisSaysSoOnceAndTheStatusPageAlerts() throws Exception {
        String uri = "test-only-redis://deployed-by-mistake";
        try (ServletContainer tomcat = ServletContainer.tomcat(); LogRecorder log = LogRecorder.record("dev.ratelimit")) {
            URI app = tomcat.deploy(AppDescriptor.builder("/shop")
                    .contextParam("ratelimit.redisUri", uri)
                    .filter("api", RateLimitFilter.class.getName(), Map.of("limit", "5", "window", "1m"), "/api/*")
                    .filter("login", RateLimitFilter.class.getName(), Map.of("limit", "3", "window", "1m"), "/login")
                    .servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/status").build());

            assertThat(Http.get(app.resolve("api/orders")).statusCode()).isEqualTo(200);
            assertThat(log.text().lines().filter(line -> line.contains("never deploy this")))
                    .as("one ERROR for the store both policies share").singleElement().asString()
                    .contains("ERROR").contains("redisUri=" + uri).contains("limits are per JVM and lost on restart");

            String json = Http.get(app.resolve("status?format=json")).body();
            assertThat(json).contains("\"verdict\":{\"level\":\"alert\",\"text\":\"redisUri=" + uri
                    + " is the test kit's Redis in this JVM: limits are per JVM and lost on restart; never deploy this\"}");
            assertThat(json.split("\"level\":\"alert\",\"text\":\"redisUri=", -1)).as("both policies' verdicts").hasSize(3);
        }
    }
}
