/**
 * The decision flow of an HTTP request, written once for every adapter:
 * {@link dev.ratelimit.internal.http.pipeline.RateLimitPipeline} decides before the handler (which policy
 * applies, which key, dry run, degraded answers) and settles after it (adaptive latency, leases,
 * {@code countStatus} refunds, {@code chargeAfter}'s charges). Not API.
 */
package dev.ratelimit.internal.http.pipeline;
