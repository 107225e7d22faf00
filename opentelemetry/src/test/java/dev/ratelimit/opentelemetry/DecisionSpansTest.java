package dev.ratelimit.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What one decision writes on the current span of a real SDK, for the cases the containers' test
 * does not reach: a dry run's denial, a degraded answer, a decision answered without Redis, and a
 * span that records nothing.
 */
class DecisionSpansTest {
    private static final Rule RULE = Rule.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1));

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    /** The events of the span {@link #onSpan} ended. */
    private int events;

    /** The attributes of a span current while {@code decide} runs, sampled or not. */
    private Attributes onSpan(Sampler sampler, Consumer<DecisionSpans> decide) {
        DecisionSpans spans = DecisionSpans.forPolicy("api");
        try (SdkTracerProvider provider = SdkTracerProvider.builder().setSampler(sampler)
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()) {
            Span span = provider.get("test").spanBuilder("GET /").startSpan();
            try (Scope current = span.makeCurrent()) {
                spans.asking();
                decide.accept(spans);
            } finally {
                span.end();
            }
            // Read before the provider shuts the exporter down, which forgets its spans.
            events = exporter.getFinishedSpanItems().isEmpty() ? 0 : exporter.getFinishedSpanItems().get(0).getEvents().size();
            return exporter.getFinishedSpanItems().isEmpty() ? null : exporter.getFinishedSpanItems().get(0).getAttributes();
        }
    }

    @Test
    void aDryRunsDenialIsMarkedAndGetsNoEvent() {
        Attributes attributes = onSpan(Sampler.alwaysOn(), spans -> {
            spans.onRedisLatency("api", 1_500_000);
            spans.decided(Decision.of(false, RULE, 0, Duration.ofSeconds(7), Duration.ofSeconds(7)), false, null);
        });
        assertThat(attributes.get(DecisionSpans.DRY_RUN)).isTrue();
        assertThat(attributes.get(DecisionSpans.RETRY_AFTER)).isEqualTo(7_000L);
        assertThat(attributes.get(DecisionSpans.REDIS_ROUND_TRIP)).isEqualTo(1.5);
        assertThat(events).isZero();
    }

    @Test
    void aDegradedAnswerTellsNoRemainingAndNoRoundTrip() {
        Attributes attributes = onSpan(Sampler.alwaysOn(), spans -> spans.decided(
                Decision.degraded(true, RULE, Duration.ofSeconds(1)), false, null));
        assertThat(attributes.get(DecisionSpans.OUTCOME)).isEqualTo("degraded");
        assertThat(attributes.get(DecisionSpans.REMAINING)).isNull();
        assertThat(attributes.get(DecisionSpans.REDIS_ROUND_TRIP)).isNull();
        assertThat(attributes.get(DecisionSpans.CLIENT_KEY)).isNull();
    }

    @Test
    void aRoundTripHeardBeforeTheDecisionWasAskedForIsNotItsOwn() {
        DecisionSpans spans = DecisionSpans.forPolicy("api");
        // A peek on this pooled thread (the status page's) timed a round trip of its own.
        spans.onRedisLatency("api", 9_000_000);
        Attributes attributes = onSpan(Sampler.alwaysOn(), fresh -> fresh.decided(
                Decision.of(true, RULE, 9, Duration.ZERO, Duration.ofMinutes(1)), false, "203.0.113.7"));
        assertThat(attributes.get(DecisionSpans.REDIS_ROUND_TRIP)).isNull();
        assertThat(attributes.get(DecisionSpans.CLIENT_KEY)).isEqualTo("203.0.113.7");
        assertThat(attributes.get(DecisionSpans.REMAINING)).isEqualTo(9L);
    }

    @Test
    void aSpanThatRecordsNothingAndNoSpanAtAllGetNothing() {
        assertThat(onSpan(Sampler.alwaysOff(), spans -> spans.decided(
                Decision.of(false, RULE, 0, Duration.ofSeconds(1), Duration.ofSeconds(1)), true, null))).isNull();
        DecisionSpans spans = DecisionSpans.forPolicy("api");
        spans.asking();
        spans.decided(Decision.of(true, RULE, 9, Duration.ZERO, Duration.ofMinutes(1)), false, null);
        assertThat(Span.current().isRecording()).isFalse();
    }
}
