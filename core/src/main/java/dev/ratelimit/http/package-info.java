/**
 * What every HTTP adapter shares, with no servlet or JAX-RS type; this package holds what users code
 * against: {@link dev.ratelimit.http.KeyResolver} (for {@code keyResolverClass}) and the
 * {@link dev.ratelimit.http.RequestView} it reads, and {@link dev.ratelimit.http.Usage}, the attribute a
 * handler reports a request's real cost in ({@code chargeAfter}). Below it, the status page
 * ({@code status}); the rest, one package per concern below {@code dev.ratelimit.internal.http}: the
 * settings ({@code settings}), who the client is ({@code client}), the decision flow
 * ({@code pipeline}), the answer ({@code answer}) and a webapp's policies ({@code webapp}). An
 * adapter wraps its request in a {@code RequestView} and writes the admission back, nothing more.
 */
package dev.ratelimit.http;
