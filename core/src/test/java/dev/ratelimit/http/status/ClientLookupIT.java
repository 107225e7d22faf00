package dev.ratelimit.http.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lookup in a {@code limits} policy, against real Redis: a value one entry cannot key (a user
 * name for {@code by ip}) is that policy's problem, said without the value, never a failure of
 * the whole report.
 */
class ClientLookupIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String LIMITS = "3 per 30s by ip; 5 per 30s by header:X-User";
    private static final String HOSTILE_USER = "<script>alert(1)</script>";

    private final RedisStoreRegistry registry = new RedisStoreRegistry();
    private PolicyRuntime runtime;

    @AfterEach
    void close() {
        runtime.close();
    }

    private PolicyRuntime start(String name) {
        Map<String, String> settings = new HashMap<>(Map.of("redisUri", redis.uri(), "keyPrefix", redis.key(name + ":"),
                "limits", LIMITS, "jmx", "false"));
        runtime = PolicyRuntime.start(HttpPolicy.parser("init-param '%s'").defaultPolicyName(name, "the filter-name")
                .parse(settings), registry, "/client-lookup-it");
        return runtime;
    }

    @Test
    void aValueOneEntryCannotKeyIsThePolicysProblemNotTheReportsFailure() {
        PolicyRuntime dims = start("dims");
        for (int i = 0; i < 2; i++) {
            assertThat(dims.pipeline().before(new FakeRequest().from("203.0.113.7").header("X-User", "alice")).denied())
                    .isFalse();
        }

        String byUser = StatusReport.of("/shop", List.of(dims), "alice").json();
        String hostile = StatusReport.of("/shop", List.of(dims), HOSTILE_USER).json();
        String byAddress = StatusReport.of("/shop", List.of(dims), "203.0.113.7").json();

        String problem = "{\"name\":\"dims\",\"problem\":\"no client of this policy: policy 'dims' decides its entry "
                + "'ip' by ip, and no such client sends that value; one value is looked up in every entry but global\"}";
        assertThat(byUser).contains(problem).doesNotContain("alice");
        assertThat(hostile).contains(problem).doesNotContain("script");
        assertThat(byAddress).as("an address is some X-User too: one that sent none yet")
                .contains("{\"name\":\"dims\",\"key\":\"203.0.113.7 + " + RedisKeys.digest("203.0.113.7") + "\","
                        + "\"allowed\":true,\"degraded\":false,\"limit\":3,\"remaining\":1,");
    }
}
