package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServerSpanFilter;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code tracing=opentelemetry} over real HTTP, on a real SDK's exported spans: a server span made
 * current around the chain, as the agent does ({@link ServerSpanFilter}), gets the decision of an
 * allowed, a denied and a delayed request; the client key only when no word of it may be a secret;
 * nothing at all with {@code tracing=none}. With {@code tracingSpan=own}, each decision is a span of
 * its own under the request's (ended once, a delayed request's too), or a root span where the webapp
 * has no server span.
 */
class TracingFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final String SECRET = "sk_live_0123456789abcdef";

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static AttributeKey<String> text(String name) {
        return AttributeKey.stringKey(name);
    }

    private static AttributeKey<Long> number(String name) {
        return AttributeKey.longKey(name);
    }

    /** An app whose filter chain is the server span, then the limiter (its policy is the app's name). */
    private static URI deploy(Kind kind, String policy, boolean async, String... pairs) throws Exception {
        return deploy(kind, policy, true, async, pairs);
    }

    /** An app with the limiter, after a server span or, as a webapp with no agent, without one. */
    private static URI deploy(Kind kind, String policy, boolean serverSpan, boolean async, String... pairs)
            throws Exception {
        AppDescriptor.Builder app = AppDescriptor.builder("/" + policy);
        if (serverSpan) {
            app.filter("span", ServerSpanFilter.class.getName(), Map.of(), "/*");
        }
        app.filter(policy, RateLimitFilter.class.getName(), FilterParams.of(redis, pairs), "/*");
        if (async) {
            app.dispatchers(policy, DispatcherType.REQUEST, DispatcherType.ASYNC)
                    .asyncSupported("span", policy, AppDescriptor.ECHO_SERVLET_NAME);
        }
        return containers.get(kind).deploy(app.build()).resolve("/" + policy + "/");
    }

    /** A request to the app, checked for its status; returns its span once it ended. */
    private static SpanData request(URI app, int status, String... headers) throws Exception {
        return ServerSpanFilter.spanOfRequest(app.resolve("x"), status, headers);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAllowedAndADeniedRequestCarryTheDecisionAndTheDenialIsAnEvent(Kind kind) throws Exception {
        String policy = "traced" + apps.incrementAndGet();
        URI app = deploy(kind, policy, false, "limit", "1", "window", "1m", "policyName", policy,
                "tracing", "opentelemetry");

        Attributes allowed = request(app, 200).getAttributes();
        assertThat(allowed.get(text("ratelimit.policy"))).isEqualTo(policy);
        assertThat(allowed.get(text("ratelimit.outcome"))).isEqualTo("allowed");
        assertThat(allowed.get(number("ratelimit.limit"))).isEqualTo(1L);
        assertThat(allowed.get(number("ratelimit.remaining"))).isEqualTo(0L);
        assertThat(allowed.get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms"))).isPositive();
        assertThat(allowed.get(text("ratelimit.client.key"))).as("key=ip is not a secret").isNotBlank();
        assertThat(allowed.get(number("ratelimit.retry_after_ms"))).isNull();

        SpanData deniedSpan = request(app, 429);
        Attributes denied = deniedSpan.getAttributes();
        assertThat(denied.get(text("ratelimit.outcome"))).isEqualTo("denied");
        assertThat(denied.get(number("ratelimit.remaining"))).isEqualTo(0L);
        assertThat(denied.get(number("ratelimit.retry_after_ms"))).isBetween(1L, 60_000L);
        assertThat(denied.get(AttributeKey.booleanKey("ratelimit.dry_run"))).isNull();
        assertThat(deniedSpan.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.denied");
        Attributes event = deniedSpan.getEvents().get(0).getAttributes();
        assertThat(event.get(text("ratelimit.policy"))).isEqualTo(policy);
        assertThat(event.get(number("ratelimit.retry_after_ms"))).isEqualTo(denied.get(number("ratelimit.retry_after_ms")));

        Attributes remembered = request(app, 429).getAttributes();
        assertThat(remembered.get(text("ratelimit.outcome"))).isEqualTo("denied");
        assertThat(remembered.get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms")))
                .as("the local deny cache answered, without Redis").isNull();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aDelayedRequestSaysHowLongItWaits(Kind kind) throws Exception {
        String policy = "delayed" + apps.incrementAndGet();
        URI app = deploy(kind, policy, true, "limit", "1", "window", "2s", "maxDelay", "5s", "policyName", policy,
                "tracing", "opentelemetry");

        assertThat(request(app, 200).getAttributes().get(text("ratelimit.outcome"))).isEqualTo("allowed");
        SpanData waited = request(app, 200);
        Attributes delayed = waited.getAttributes();
        assertThat(delayed.get(text("ratelimit.outcome"))).isEqualTo("delayed");
        assertThat(delayed.get(number("ratelimit.delay_ms"))).isBetween(1L, 2_000L);
        assertThat(delayed.get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms"))).isPositive();
        assertThat(waited.getEvents()).as("a delayed request is not refused").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void withTracingSpanOwnEachDecisionIsASpanOfItsOwnUnderTheRequestsSpan(Kind kind) throws Exception {
        String policy = "own" + apps.incrementAndGet();
        URI app = deploy(kind, policy, false, "limit", "1", "window", "1m", "policyName", policy,
                "tracing", "opentelemetry", "tracingSpan", "own");

        SpanData allowedRequest = request(app, 200);
        assertThat(allowedRequest.getAttributes().asMap().keySet()).extracting(AttributeKey::getKey)
                .as("the request's span is left alone").noneMatch(name -> name.startsWith("ratelimit."));
        SpanData allowed = onlyChild(allowedRequest, policy);
        assertThat(allowed.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(allowed.getAttributes().get(text("ratelimit.policy"))).isEqualTo(policy);
        assertThat(allowed.getAttributes().get(text("ratelimit.outcome"))).isEqualTo("allowed");
        assertThat(allowed.getAttributes().get(number("ratelimit.remaining"))).isEqualTo(0L);
        assertThat(allowed.getAttributes().get(AttributeKey.doubleKey("ratelimit.redis.round_trip_ms"))).isPositive();

        SpanData deniedRequest = request(app, 429);
        assertThat(deniedRequest.getEvents()).isEmpty();
        SpanData denied = onlyChild(deniedRequest, policy);
        assertThat(denied.getAttributes().get(text("ratelimit.outcome"))).isEqualTo("denied");
        assertThat(denied.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.denied");
        assertThat(denied.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aDelayedRequestsOwnSpanEndsOnceWhenItsDecisionIsMadeNotAfterItsTurn(Kind kind) throws Exception {
        String policy = "ownDelayed" + apps.incrementAndGet();
        URI app = deploy(kind, policy, true, "limit", "1", "window", "2s", "maxDelay", "5s", "policyName", policy,
                "tracing", "opentelemetry", "tracingSpan", "own");

        request(app, 200);
        SpanData waitedRequest = request(app, 200);
        SpanData delayed = onlyChild(waitedRequest, policy);
        assertThat(delayed.getAttributes().get(text("ratelimit.outcome"))).isEqualTo("delayed");
        assertThat(delayed.getAttributes().get(number("ratelimit.delay_ms"))).isBetween(1L, 2_000L);
        // The server span ends when the request is suspended for its turn (the async dispatch that
        // runs the chain is not under it): the decision's span ended before, not at the re-dispatch.
        assertThat(delayed.getEndEpochNanos()).isLessThanOrEqualTo(waitedRequest.getEndEpochNanos());
        assertThat(ServerSpanFilter.spansNamed("ratelimit " + policy)).as("one span per decision, two requests")
                .hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void withoutAServerSpanTracingSpanOwnStillTracesEachDecision(Kind kind) throws Exception {
        // No agent and no span made current: the SDK the application registered is all there is.
        ServerSpanFilter.registerGlobally();
        String policy = "rootOwn" + apps.incrementAndGet();
        URI app = deploy(kind, policy, false, false, "limit", "1", "window", "1m", "policyName", policy,
                "tracing", "opentelemetry", "tracingSpan", "own");

        assertThat(Http.get(app.resolve("x")).statusCode()).isEqualTo(200);
        assertThat(Http.get(app.resolve("x")).statusCode()).isEqualTo(429);
        List<SpanData> spans = ServerSpanFilter.spansNamed("ratelimit " + policy);
        assertThat(spans).extracting(span -> span.getAttributes().get(text("ratelimit.outcome")))
                .containsExactly("allowed", "denied");
        assertThat(spans).allSatisfy(span -> assertThat(span.getParentSpanContext().isValid()).isFalse());
    }

    /** The one span the policy's decision made under the request's span. */
    private static SpanData onlyChild(SpanData request, String policy) {
        List<SpanData> children = ServerSpanFilter.childrenOf(request);
        assertThat(children).extracting(SpanData::getName).containsExactly("ratelimit " + policy);
        return children.get(0);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aKeyThatMayBeASecretIsNeverOnTheSpan(Kind kind) throws Exception {
        String policy = "secret" + apps.incrementAndGet();
        URI app = deploy(kind, policy, false, "limit", "5", "window", "1m", "key", "header:X-Api-Key",
                "policyName", policy, "tracing", "opentelemetry");

        Attributes attributes = request(app, 200, "X-Api-Key", SECRET).getAttributes();
        assertThat(attributes.get(text("ratelimit.outcome"))).isEqualTo("allowed");
        assertThat(attributes.get(text("ratelimit.client.key"))).isNull();
        assertThat(attributes.asMap().values()).allSatisfy(value -> assertThat(value.toString()).doesNotContain(SECRET));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void withoutTracingTheSpanHearsNothingOfTheLimiter(Kind kind) throws Exception {
        String policy = "untraced" + apps.incrementAndGet();
        URI app = deploy(kind, policy, false, "limit", "1", "window", "1m", "policyName", policy);

        request(app, 200);
        SpanData denied = request(app, 429);
        assertThat(denied.getAttributes().asMap().keySet()).extracting(AttributeKey::getKey)
                .noneMatch(name -> name.startsWith("ratelimit."));
        assertThat(denied.getEvents()).isEmpty();
    }
}
