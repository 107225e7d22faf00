package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys from headers, cookies and query parameters may be secrets (API keys, session tokens): they
 * limit each client apart, but Redis stores only their digests, where SCAN, MONITOR and RDB files
 * would otherwise show them. The address stays readable.
 */
class RateLimitFilterSecretKeysIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String SECRET = "sk_live_0123456789abcdef";

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** Each key word, and how a request carries the secret for it. */
    static Stream<Arguments> secretKeys() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            cases.add(Arguments.of(kind, "header:X-Api-Key", "", new String[] {"X-Api-Key", SECRET}));
            cases.add(Arguments.of(kind, "cookie:token", "", new String[] {"Cookie", "token=" + SECRET}));
            cases.add(Arguments.of(kind, "param:api_key", "?api_key=" + SECRET, new String[0]));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("secretKeys")
    void aSecretLimitsItsClientButRedisOnlyEverSeesItsDigest(Kind kind, String key, String query, String[] headers)
            throws Exception {
        String policy = "secret" + apps.incrementAndGet();
        URI app = containers.get(kind).deploy(AppDescriptor.builder("/" + policy).filter(policy,
                RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "1", "window", "1m", "key", key,
                        "policyName", policy), "/*").build());

        assertThat(Http.get(app.resolve("x" + query), headers).statusCode()).isEqualTo(200);
        assertThat(Http.get(app.resolve("x" + query), headers).statusCode()).as("the same secret").isEqualTo(429);
        assertThat(Http.get(app.resolve("x"), "X-Api-Key", "another", "Cookie", "token=another").statusCode())
                .as("another client (or the shared keyless bucket)").isEqualTo(200);

        List<String> keys = PolicyKeys.without(redis.keys());
        assertThat(keys).filteredOn(name -> name.contains(policy)).isNotEmpty()
                .allSatisfy(name -> assertThat(name).doesNotContain(SECRET).doesNotContain("another").contains("{#"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theAddressStaysReadable(Kind kind) throws Exception {
        String policy = "address" + apps.incrementAndGet();
        URI app = containers.get(kind).deploy(AppDescriptor.builder("/" + policy).filter(policy,
                RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "5", "window", "1m",
                        "policyName", policy), "/*").build());

        assertThat(Http.get(app).statusCode()).isEqualTo(200);

        assertThat(PolicyKeys.without(redis.keys())).filteredOn(name -> name.contains(policy)).singleElement().asString()
                .endsWith(policy + ":{127.0.0.1}");
    }
}
