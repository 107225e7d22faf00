/**
 * What an HTTP decision tells the request's trace ({@code tracing=opentelemetry}):
 * {@link dev.ratelimit.internal.http.trace.DecisionTrace}, the hook the pipeline calls on the
 * request's thread, and {@link dev.ratelimit.internal.http.trace.TracingBinding}, which finds the
 * optional module's implementation by name so that the core needs no OpenTelemetry. Not API.
 */
package dev.ratelimit.internal.http.trace;
