package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import dev.ratelimit.testing.log.LogRecorder;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's JUnit 5 test of a servlet behind RateLimitFilter, as docs/testing.md shows it: the
 * filter's {@code redisUri} names the kit's Redis, requests go over real HTTP to an embedded
 * Tomcat, and no Redis server runs. Each test starts from a fresh Redis (the extension resets it
 * after each), though the one before ended with its client denied and remembered as denied.
 */
class FilteredServletJUnit5IT {
    @RegisterExtension
    static final TestOnlyRedisExtension redis = new TestOnlyRedisExtension("servlet-junit5");

    private static ServletContainer tomcat;
    private static URI shop;
    private static String startLog;

    @BeforeAll
    static void start() throws Exception {
        tomcat = ServletContainer.tomcat();
        try (LogRecorder log = LogRecorder.record("dev.ratelimit")) {
            shop = tomcat.deploy(AppDescriptor.builder("/shop").filter("limits", RateLimitFilter.class.getName(),
                    Map.of("redisUri", redis.uri(), "limit", "3", "window", "1m"), "/*").build());
            startLog = log.text();
        }
    }

    @AfterAll
    static void stop() {
        tomcat.close();
    }

    @Test
    void threeRequestsAMinuteThenTooManyUntilTheMinuteHasPassed() {
        exhaust();
        HttpResponse<String> denied = Http.get(shop);
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).hasValue("60");

        redis.advance(Duration.ofSeconds(59));
        assertThat(Http.get(shop).statusCode()).as("a second early").isEqualTo(429);
        redis.advance(Duration.ofSeconds(1));
        assertThat(Http.get(shop).statusCode()).as("the minute has passed").isEqualTo(200);
    }

    @Test
    void underTheExtensionTheKitsRedisLogsNoError() {
        assertThat(startLog).contains("redis test-only-redis://servlet-junit5").doesNotContain("never deploy this");
    }

    @Test
    void eachTestStartsWithAFreshRedis() {
        exhaust();
        assertThat(Http.get(shop).statusCode()).isEqualTo(429);
    }

    @Test
    void aResetInsideATestForgetsTheDenialAtOnce() {
        exhaust();
        assertThat(Http.get(shop).statusCode()).isEqualTo(429);
        redis.reset();
        exhaust();
    }

    /** Three answers of 200, the last with nothing remaining: only a fresh window gives that. */
    private static void exhaust() {
        for (int i = 2; i >= 0; i--) {
            HttpResponse<String> answer = Http.get(shop);
            assertThat(answer.statusCode()).as("request %d", 3 - i).isEqualTo(200);
            assertThat(answer.headers().firstValue("RateLimit").orElse("")).contains(";r=" + i + ";");
        }
    }
}
