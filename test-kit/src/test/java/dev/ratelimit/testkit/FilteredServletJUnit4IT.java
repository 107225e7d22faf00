package dev.ratelimit.testkit;

import static org.junit.Assert.assertEquals;

import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;

/**
 * A legacy team's JUnit 4 test of a servlet behind RateLimitFilter, with the kit's rule as class
 * rule and rule: the container starts in {@code @BeforeClass}, every request goes over real HTTP to
 * an embedded Jetty, no Redis server runs, and each test starts from a fresh Redis.
 */
public class FilteredServletJUnit4IT {
    @ClassRule
    @Rule
    public static final TestOnlyRedisRule redis = new TestOnlyRedisRule("servlet-junit4");

    private static ServletContainer jetty;
    private static URI shop;

    @BeforeClass
    public static void start() throws Exception {
        jetty = ServletContainer.jetty();
        shop = jetty.deploy(AppDescriptor.builder("/shop").filter("limits", RateLimitFilter.class.getName(),
                Map.of("redisUri", redis.uri(), "algorithm", "token-bucket", "limit", "2", "window", "1m"), "/*")
                .build());
    }

    @AfterClass
    public static void stop() {
        jetty.close();
    }

    @Test
    public void twoRequestsThenTooManyUntilATokenIsBack() {
        assertEquals(200, Http.get(shop).statusCode());
        assertEquals(200, Http.get(shop).statusCode());
        assertEquals(429, Http.get(shop).statusCode());
        assertEquals("30", Http.get(shop).headers().firstValue("Retry-After").orElse(""));
        redis.advance(Duration.ofSeconds(30));
        assertEquals(200, Http.get(shop).statusCode());
        assertEquals(429, Http.get(shop).statusCode());
    }

    @Test
    public void eachTestStartsWithAFreshRedis() {
        assertEquals(200, Http.get(shop).statusCode());
        assertEquals(200, Http.get(shop).statusCode());
        assertEquals(429, Http.get(shop).statusCode());
    }
}
