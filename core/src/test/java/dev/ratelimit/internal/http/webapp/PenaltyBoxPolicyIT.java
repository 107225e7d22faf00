package dev.ratelimit.internal.http.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The penalty box with what else a policy may say, through the HTTP pipeline on a real Redis, two
 * runtimes of one policy standing for two nodes: each tier boxes its clients at its own limit, a
 * dry run ({@code enforce=false}) boxes as the real thing would but lets every request through, a
 * live limit override neither frees a boxed client nor boxes one that was not, and a live
 * {@code enforce=true} makes an existing box refuse at once.
 */
class PenaltyBoxPolicyIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration PENALTY = Duration.ofMinutes(10);
    private static final String WEBAPP = "/penalty-policy-it";

    private final RedisStoreRegistry registry = new RedisStoreRegistry();
    private final List<PolicyRuntime> started = new ArrayList<>();

    @AfterEach
    void close() {
        started.forEach(PolicyRuntime::close);
    }

    private PolicyRuntime node(String name, String... pairs) {
        Map<String, String> settings = new HashMap<>(Map.of("algorithm", "sliding-log", "limit", "3", "window", "1m",
                "penalty", "10m", "key", "header:X-Client", "redisUri", redis.uri(), "redisTimeout", "2s",
                "keyPrefix", redis.keyPrefix()));
        for (int i = 0; i < pairs.length; i += 2) {
            settings.put(pairs[i], pairs[i + 1]);
        }
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName(name, "the filter-name")
                .parse(settings);
        PolicyRuntime runtime = PolicyRuntime.start(policy, registry, WEBAPP);
        started.add(runtime);
        return runtime;
    }

    /** A client's requests: each one new, as a container's are (a pipeline decides a request once). */
    private static Supplier<FakeRequest> from(String client) {
        return () -> new FakeRequest().header("X-Client", client);
    }

    private static Supplier<FakeRequest> partner(String client) {
        return () -> new FakeRequest().header("X-Client", client).header("X-Tier", "partner");
    }

    /** A request through the node's pipeline, ended as an adapter ends it; what it was told. */
    private static Admission send(PolicyRuntime node, Supplier<FakeRequest> request) {
        Admission admission = node.pipeline().before(request.get());
        if (!admission.denied()) {
            node.pipeline().after(admission, 200, null);
        }
        return admission;
    }

    private static int admittedOf(PolicyRuntime node, Supplier<FakeRequest> request, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += send(node, request).denied() ? 0 : 1;
        }
        return admitted;
    }

    @Test
    void eachTierBoxesItsClientsAtItsOwnLimitOnEveryNode() {
        String[] tiers = {"tiers", "partner:6", "tierFrom", "header:X-Tier", "trustedProxies", "192.0.2.0/24"};
        PolicyRuntime one = node("boxed-tiers", tiers);
        PolicyRuntime two = node("boxed-tiers", tiers);

        assertThat(admittedOf(one, from("plain"), 5)).as("the policy's limit").isEqualTo(3);
        assertThat(admittedOf(one, partner("gold"), 9)).as("the partner tier's limit").isEqualTo(6);

        for (PolicyRuntime node : List.of(one, two)) {
            for (Supplier<FakeRequest> boxed : List.of(from("plain"), partner("gold"))) {
                Admission refused = send(node, boxed);
                assertThat(refused.denied()).isTrue();
                Decision decision = refused.decision();
                assertThat(decision.penalized()).as("boxed on both nodes").isTrue();
                assertThat(decision.retryAfter()).isBetween(PENALTY.minusSeconds(5), PENALTY);
            }
        }
        Decision partnerBox = send(two, partner("gold")).decision();
        assertThat(partnerBox.limit()).as("the partner's box answers with the partner's limit").isEqualTo(6);
        assertThat(send(two, partner("silver")).denied()).as("another partner is not boxed").isFalse();
        assertThat(send(two, from("other")).denied()).as("another plain client is not boxed").isFalse();
    }

    @Test
    void aDryRunBoxesAsTheRealThingWouldButLetsEveryRequestThroughUntilEnforceIsSetLive() {
        PolicyRuntime one = node("boxed-dry-run", "enforce", "false");
        PolicyRuntime two = node("boxed-dry-run", "enforce", "false");

        assertThat(admittedOf(one, from("client"), 6)).as("a dry run blocks nothing").isEqualTo(6);
        Admission overOnTheOtherNode = send(two, from("client"));
        assertThat(overOnTheOtherNode.denied()).isFalse();
        assertThat(overOnTheOtherNode.decision().allowed()).as("but says what the real thing would").isFalse();
        assertThat(overOnTheOtherNode.decision().penalized()).as("boxed, as it would have been").isTrue();
        assertThat(overOnTheOtherNode.decision().retryAfter()).isBetween(PENALTY.minusSeconds(5), PENALTY);

        one.limiter().overrides().setEnforce(true, "PenaltyBoxPolicyIT");
        two.limiter().overrides().refresh();

        for (PolicyRuntime node : List.of(one, two)) {
            Admission refused = send(node, from("client"));
            assertThat(refused.denied()).as("enforced live: the box refuses at once").isTrue();
            assertThat(refused.decision().penalized()).isTrue();
        }
        assertThat(send(two, from("another")).denied()).as("another client is not boxed").isFalse();
    }

    @Test
    void aLiveLimitOverrideNeitherFreesABoxedClientNorBoxesAnother() {
        PolicyRuntime one = node("boxed-override");
        PolicyRuntime two = node("boxed-override");
        assertThat(admittedOf(one, from("boxed"), 4)).isEqualTo(3);
        assertThat(admittedOf(one, from("near"), 3)).as("at its limit, not over it").isEqualTo(3);

        one.limiter().overrides().setLimit(100, "PenaltyBoxPolicyIT");
        two.limiter().overrides().refresh();

        for (PolicyRuntime node : List.of(one, two)) {
            Admission stillBoxed = send(node, from("boxed"));
            assertThat(stillBoxed.denied()).as("a higher limit does not end the box").isTrue();
            assertThat(stillBoxed.decision().penalized()).isTrue();
        }
        assertThat(admittedOf(two, from("near"), 10)).as("the client at the old limit goes on under the new one")
                .isEqualTo(10);

        one.limiter().overrides().setLimit(1, "PenaltyBoxPolicyIT");
        two.limiter().overrides().refresh();
        Admission overTheLowerLimit = send(two, from("fresh"));
        assertThat(overTheLowerLimit.denied()).isFalse();
        Admission boxedUnderIt = send(two, from("fresh"));
        assertThat(boxedUnderIt.decision().penalized()).as("over the overridden limit: boxed").isTrue();
        assertThat(boxedUnderIt.decision().limit()).isEqualTo(1);
    }
}
