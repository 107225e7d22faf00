/**
 * {@code tracing=opentelemetry}: each HTTP decision of a policy written on the request's OpenTelemetry
 * trace, on the current span ({@link dev.ratelimit.opentelemetry.DecisionSpans}) or, with
 * {@code tracingSpan=own}, on a span of its own per decision. The core finds it by name; it is
 * not API.
 */
package dev.ratelimit.opentelemetry;
