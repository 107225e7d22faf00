package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.jaxrs.CurrentRequestListener;
import dev.ratelimit.jaxrs.RateLimitFeature;
import dev.ratelimit.jaxrs.RateLimited;
import dev.ratelimit.jaxrs.RedisCleanupListener;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainer;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's test of a {@code @RateLimited} JAX-RS resource on Jersey: {@code RateLimitFeature} reads
 * {@code redisUri} from the JAX-RS property {@code ratelimit.redisUri}, set to the kit's Redis;
 * real HTTP to an embedded Tomcat, no Redis server.
 */
class RateLimitedResourceIT {
    @RegisterExtension
    static final TestOnlyRedisExtension redis = new TestOnlyRedisExtension("jaxrs");

    private static ServletContainer tomcat;
    private static URI quotes;

    /** The user's resource: two quotes a minute per client. */
    @Path("quotes")
    public static class Quotes {
        @GET
        @RateLimited(limit = 2, window = "1m", algorithm = "gcra")
        public String quote() {
            return "42";
        }
    }

    /** The user's application, pointing the limiter at the kit as its own tests configure it. */
    public static class ShopApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Quotes.class, RateLimitFeature.class);
        }

        @Override
        public Map<String, Object> getProperties() {
            return Map.of("ratelimit.redisUri", redis.uri());
        }
    }

    @BeforeAll
    static void start() throws Exception {
        tomcat = ServletContainer.tomcat();
        URI app = tomcat.deploy(AppDescriptor.builder("/shop")
                .listener(RedisCleanupListener.class.getName())
                .listener(CurrentRequestListener.class.getName())
                .servlet("jaxrs", "org.glassfish.jersey.servlet.ServletContainer",
                        Map.of("jakarta.ws.rs.Application", ShopApplication.class.getName()), "/rest/*").build());
        quotes = app.resolve("rest/quotes");
    }

    @AfterAll
    static void stop() {
        tomcat.close();
    }

    @Test
    void twoQuotesAMinuteThenTooManyUntilTheNextIsDue() {
        assertThat(Http.get(quotes).statusCode()).isEqualTo(200);
        assertThat(Http.get(quotes).statusCode()).isEqualTo(200);
        HttpResponse<String> denied = Http.get(quotes);
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).hasValue("30");
        redis.advance(Duration.ofSeconds(30));
        assertThat(Http.get(quotes).statusCode()).isEqualTo(200);
        assertThat(Http.get(quotes).statusCode()).isEqualTo(429);
    }

    @Test
    void eachTestStartsWithAFreshRedis() {
        assertThat(Http.get(quotes).statusCode()).isEqualTo(200);
        assertThat(Http.get(quotes).statusCode()).isEqualTo(200);
        assertThat(Http.get(quotes).statusCode()).isEqualTo(429);
    }
}
