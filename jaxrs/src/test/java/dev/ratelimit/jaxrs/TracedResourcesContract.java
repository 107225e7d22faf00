package dev.ratelimit.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.ServerSpanFilter;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code tracing=opentelemetry} for @RateLimited resources (docs/tracing.md), on a real SDK's
 * exported spans: a server span made current around the JAX-RS servlet by a filter mapped before
 * it, as the agent does ({@link ServerSpanFilter}), gets the decision of an allowed and a denied
 * request and the denial's event; the context-param {@code ratelimit.tracing}, or the JAX-RS
 * property, turns it on, checked like every setting; {@code ratelimit.tracingSpan=own} puts each
 * decision on a span of its own under the request's. Written once, run for each runtime (a subclass per runtime, each in its
 * own JVM), in Tomcat and in Jetty.
 */
abstract class TracedResourcesContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** The runtime this subclass's JVM runs. */
    abstract JaxrsRuntime runtime();

    private static AttributeKey<String> text(String name) {
        return AttributeKey.stringKey(name);
    }

    private static AttributeKey<Long> number(String name) {
        return AttributeKey.longKey(name);
    }

    /** The resources, behind a server span; {@code tracing} as the webapp's context-param, unless null. */
    private AppDescriptor app(String tracing) {
        return app(Resources.LimitedApplication.class, tracing);
    }

    private AppDescriptor app(Class<?> application, String tracing, String... contextParams) {
        AppDescriptor.Builder app = runtime().app("/traced" + apps.incrementAndGet(), application, redis)
                .filter("span", ServerSpanFilter.class.getName(), Map.of(), "/*")
                // Exact outcomes are asserted: on a loaded machine a call may wait longer than the default
                // 200 ms, and onRedisFailure=allow would then rightly admit the request that should be denied.
                .contextParam("ratelimit.redisTimeout", "2s");
        if (tracing != null) {
            app.contextParam("ratelimit.tracing", tracing);
        }
        for (int i = 0; i < contextParams.length; i += 2) {
            app.contextParam(contextParams[i], contextParams[i + 1]);
        }
        return app.build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anAllowedAndADeniedRequestCarryTheDecisionAndTheDenialIsAnEvent(Kind kind) throws Exception {
        URI orders = containers.get(kind).deploy(app("opentelemetry")).resolve("rest/orders");

        Attributes allowed = null;
        for (long remaining = 2; remaining >= 0; remaining--) {
            allowed = ServerSpanFilter.spanOfRequest(orders, 200).getAttributes();
            assertThat(allowed.get(number("ratelimit.remaining"))).isEqualTo(remaining);
        }
        assertThat(allowed.get(text("ratelimit.policy"))).isEqualTo("Orders.list");
        assertThat(allowed.get(text("ratelimit.outcome"))).isEqualTo("allowed");
        assertThat(allowed.get(number("ratelimit.limit"))).isEqualTo(3L);
        assertThat(allowed.get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms"))).isPositive();
        assertThat(allowed.get(text("ratelimit.client.key"))).as("key=ip is not a secret").isNotBlank();
        assertThat(allowed.get(number("ratelimit.retry_after_ms"))).isNull();

        SpanData deniedSpan = ServerSpanFilter.spanOfRequest(orders, 429);
        Attributes denied = deniedSpan.getAttributes();
        assertThat(denied.get(text("ratelimit.policy"))).isEqualTo("Orders.list");
        assertThat(denied.get(text("ratelimit.outcome"))).isEqualTo("denied");
        assertThat(denied.get(number("ratelimit.remaining"))).isEqualTo(0L);
        assertThat(denied.get(number("ratelimit.retry_after_ms"))).isBetween(1L, 60_000L);
        assertThat(deniedSpan.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.denied");
        Attributes event = deniedSpan.getEvents().get(0).getAttributes();
        assertThat(event.get(text("ratelimit.policy"))).isEqualTo("Orders.list");
        assertThat(event.get(number("ratelimit.retry_after_ms"))).isEqualTo(denied.get(number("ratelimit.retry_after_ms")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withTracingSpanOwnEachDecisionIsASpanOfItsOwnUnderTheRequestsSpan(Kind kind) throws Exception {
        URI orders = containers.get(kind).deploy(app(Resources.LimitedApplication.class, "opentelemetry",
                "ratelimit.tracingSpan", "own")).resolve("rest/orders");

        for (long remaining = 2; remaining >= 0; remaining--) {
            SpanData request = ServerSpanFilter.spanOfRequest(orders, 200);
            assertThat(request.getAttributes().get(text("ratelimit.outcome"))).as("the request's span is left alone")
                    .isNull();
            Attributes allowed = onlyChild(request).getAttributes();
            assertThat(allowed.get(text("ratelimit.outcome"))).isEqualTo("allowed");
            assertThat(allowed.get(number("ratelimit.remaining"))).isEqualTo(remaining);
        }
        SpanData denied = onlyChild(ServerSpanFilter.spanOfRequest(orders, 429));
        assertThat(denied.getAttributes().get(text("ratelimit.policy"))).isEqualTo("Orders.list");
        assertThat(denied.getAttributes().get(text("ratelimit.outcome"))).isEqualTo("denied");
        assertThat(denied.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.denied");
    }

    /** The one span the resource's decision made under the request's span. */
    private static SpanData onlyChild(SpanData request) {
        List<SpanData> children = ServerSpanFilter.childrenOf(request);
        assertThat(children).extracting(SpanData::getName).containsExactly("ratelimit Orders.list");
        return children.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aKeyThatMayBeASecretIsNeverOnTheSpan(Kind kind) throws Exception {
        String secret = "sk_live_0123456789abcdef";
        // Tracing from the application's JAX-RS property this time, not from the context-param.
        URI shared = containers.get(kind).deploy(app(Resources.TracedApplication.class, null)).resolve("rest/shared");

        Attributes attributes = ServerSpanFilter.spanOfRequest(shared, 200, "X-Client", secret).getAttributes();
        assertThat(attributes.get(text("ratelimit.policy"))).isEqualTo("shared");
        assertThat(attributes.get(text("ratelimit.outcome"))).isEqualTo("allowed");
        assertThat(attributes.get(text("ratelimit.client.key"))).as("key=header:X-Client").isNull();
        assertThat(attributes.asMap().values()).allSatisfy(value -> assertThat(value.toString()).doesNotContain(secret));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void withoutTracingTheSpanHearsNothingOfTheLimiter(Kind kind) throws Exception {
        URI orders = containers.get(kind).deploy(app(null)).resolve("rest/orders");
        for (int i = 0; i < 3; i++) {
            ServerSpanFilter.spanOfRequest(orders, 200);
        }
        SpanData denied = ServerSpanFilter.spanOfRequest(orders, 429);
        assertThat(denied.getAttributes().asMap().keySet()).extracting(AttributeKey::getKey)
                .noneMatch(name -> name.startsWith("ratelimit."));
        assertThat(denied.getEvents()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aBadTracingValueFailsTheDeploymentNamingTheSettingAndTheValue(Kind kind) {
        AppDescriptor bad = app("zipkin");
        assertThatThrownBy(() -> containers.get(kind).deploy(bad))
                .isInstanceOf(DeploymentFailedException.class)
                .hasMessageContaining("'ratelimit.tracing' must be none or opentelemetry, but was 'zipkin'");
    }
}
