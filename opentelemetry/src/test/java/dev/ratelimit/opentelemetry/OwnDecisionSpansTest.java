package dev.ratelimit.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tracingSpan=own} on a real SDK registered as the global OpenTelemetry: one span per
 * decision, a child of the current one and current itself while the decision is made, ended exactly
 * once whether the decision came or the call threw; and nothing at all, the global left unset,
 * before an application registers its SDK.
 */
class OwnDecisionSpansTest {
    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1));

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

    @AfterEach
    void forgetTheGlobal() {
        GlobalOpenTelemetry.resetForTest();
    }

    private SdkTracerProvider registered() {
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        OpenTelemetrySdk.builder().setTracerProvider(provider).buildAndRegisterGlobal();
        return provider;
    }

    @Test
    void aDecisionIsASpanOfItsOwnUnderTheRequestsCurrentOne() {
        DecisionTrace trace = DecisionSpans.withOwnSpans("api");
        try (SdkTracerProvider provider = registered()) {
            Span request = provider.get("test").spanBuilder("GET /").startSpan();
            Span duringTheDecision;
            try (Scope current = request.makeCurrent()) {
                DecisionTrace.Asked asked = trace.asking();
                duringTheDecision = Span.current();
                trace.onRedisLatency("api", 2_000_000);
                asked.decided(Decision.of(false, RULE, 0, Duration.ofSeconds(3), Duration.ofSeconds(3)), true, null);
                assertThat(Span.current()).as("the request's span is current again").isSameAs(request);
            } finally {
                request.end();
            }
            List<SpanData> spans = exporter.getFinishedSpanItems();
            assertThat(spans).extracting(SpanData::getName).containsExactly("ratelimit api", "GET /");
            SpanData own = spans.get(0);
            assertThat(own.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(own.getSpanId()).isEqualTo(duringTheDecision.getSpanContext().getSpanId());
            assertThat(own.getAttributes().get(PolicyTrace.OUTCOME)).isEqualTo("denied");
            assertThat(own.getAttributes().get(PolicyTrace.REDIS_ROUND_TRIP)).isEqualTo(2.0);
            assertThat(own.getEvents()).extracting(EventData::getName).containsExactly(PolicyTrace.DENIED_EVENT);
            assertThat(spans.get(1).getAttributes().get(PolicyTrace.OUTCOME)).as("the request's span is left alone")
                    .isNull();
        }
    }

    @Test
    void aDecisionThatThrowsEndsItsSpanOnceAsAnError() {
        DecisionTrace trace = DecisionSpans.withOwnSpans("api");
        try (SdkTracerProvider provider = registered()) {
            DecisionTrace.Asked asked = trace.asking();
            asked.failed(new IllegalStateException("a bug"));
            assertThat(Span.current().getSpanContext().isValid()).as("nothing is left current").isFalse();
            SpanData own = exporter.getFinishedSpanItems().get(0);
            assertThat(exporter.getFinishedSpanItems()).hasSize(1);
            assertThat(own.getParentSpanContext().isValid()).as("a root span: nothing was current").isFalse();
            assertThat(own.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(own.getEvents()).extracting(EventData::getName).containsExactly("exception");
        }
    }

    @Test
    void beforeAnSdkIsRegisteredNothingIsMadeAndTheGlobalIsLeftForTheApplication() {
        DecisionTrace trace = DecisionSpans.withOwnSpans("api");
        trace.asking().decided(Decision.of(true, RULE, 9, Duration.ZERO, Duration.ofMinutes(1)), false, null);
        assertThat(GlobalOpenTelemetry.isSet()).isFalse();

        try (SdkTracerProvider provider = registered()) {
            trace.asking().decided(Decision.of(true, RULE, 8, Duration.ZERO, Duration.ofMinutes(1)), false, null);
            assertThat(exporter.getFinishedSpanItems()).extracting(SpanData::getName).containsExactly("ratelimit api");
            assertThat(exporter.getFinishedSpanItems().get(0).getAttributes().get(PolicyTrace.REMAINING)).isEqualTo(8L);
        }
    }
}
