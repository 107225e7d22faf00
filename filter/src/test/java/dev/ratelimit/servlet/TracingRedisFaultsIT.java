package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.ServerSpanFilter;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.FaultProxy;
import dev.ratelimit.testing.RedisServerExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code tracing=opentelemetry} while Redis cannot be asked, over real HTTP: Redis down (its port
 * refuses) or timing out (a blackhole), with {@code onRedisFailure=allow} and {@code deny}, on the
 * request's span and on a span of the limiter's own. The decision says {@code degraded}, nothing is
 * recorded as an exception or an error, and the answer is the policy's (200, or its 503), never a 500.
 */
class TracingRedisFaultsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    /** How Redis fails. */
    enum Fault {
        DOWN(FaultProxy::refuse), TIMING_OUT(FaultProxy::blackhole);

        private final Consumer<FaultProxy> apply;

        Fault(Consumer<FaultProxy> apply) {
            this.apply = apply;
        }
    }

    private FaultProxy proxy;

    @BeforeEach
    void openProxy() {
        proxy = new FaultProxy(redis.host(), redis.port());
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** Each fault with each failure policy, once on the request's span and once on an own span. */
    static List<Arguments> faults() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            cases.add(Arguments.of(kind, Fault.DOWN, "allow", "current"));
            cases.add(Arguments.of(kind, Fault.DOWN, "deny", "own"));
            cases.add(Arguments.of(kind, Fault.TIMING_OUT, "allow", "own"));
            cases.add(Arguments.of(kind, Fault.TIMING_OUT, "deny", "current"));
        }
        return cases;
    }

    @ParameterizedTest(name = "{0}: Redis {1}, onRedisFailure={2}, tracingSpan={3}")
    @MethodSource("faults")
    void aDecisionRedisCouldNotMakeIsTracedAsDegradedAndNothingEscapes(Kind kind, Fault fault, String onRedisFailure,
            String tracingSpan) throws Exception {
        String policy = "faulty" + apps.incrementAndGet();
        URI app = containers.get(kind).deploy(AppDescriptor.builder("/" + policy)
                .filter("span", ServerSpanFilter.class.getName(), Map.of(), "/*")
                .filter(policy, RateLimitFilter.class.getName(), Map.of("redisUri", proxy.redisUri(),
                        "keyPrefix", redis.keyPrefix() + policy + ":", "redisTimeout", "300ms", "limit", "5",
                        "window", "1m", "policyName", policy, "onRedisFailure", onRedisFailure,
                        "tracing", "opentelemetry", "tracingSpan", tracingSpan), "/*")
                .build()).resolve("/" + policy + "/x");
        boolean own = tracingSpan.equals("own");

        SpanData healthy = decision(ServerSpanFilter.spanOfRequest(app, 200), own, policy);
        assertThat(healthy.getAttributes().get(AttributeKey.stringKey("ratelimit.outcome"))).isEqualTo("allowed");

        fault.apply.accept(proxy);
        boolean deny = onRedisFailure.equals("deny");
        SpanData request = ServerSpanFilter.spanOfRequest(app, deny ? 503 : 200);
        SpanData degraded = decision(request, own, policy);
        Attributes attributes = degraded.getAttributes();
        assertThat(attributes.get(AttributeKey.stringKey("ratelimit.outcome"))).isEqualTo("degraded");
        assertThat(attributes.get(AttributeKey.stringKey("ratelimit.policy"))).isEqualTo(policy);
        assertThat(attributes.get(AttributeKey.longKey("ratelimit.remaining"))).as("nothing was counted").isNull();
        assertThat(attributes.get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms"))).as("Redis did not answer")
                .isNull();
        for (SpanData span : List.of(request, degraded)) {
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(span.getEvents()).extracting(EventData::getName).doesNotContain("exception");
        }
        if (deny) {
            assertThat(degraded.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.denied");
            assertThat(attributes.get(AttributeKey.longKey("ratelimit.retry_after_ms"))).isPositive();
        } else {
            assertThat(degraded.getEvents()).isEmpty();
        }
    }

    /** The span the decision was written on: the request's, or the one own span under it. */
    private static SpanData decision(SpanData request, boolean own, String policy) {
        if (!own) {
            return request;
        }
        List<SpanData> children = ServerSpanFilter.childrenOf(request);
        assertThat(children).extracting(SpanData::getName).containsExactly("ratelimit " + policy);
        return children.get(0);
    }
}
