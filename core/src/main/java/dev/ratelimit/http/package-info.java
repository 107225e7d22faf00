/**
 * What every HTTP adapter shares, with no servlet or JAX-RS type; this package holds what users code
 * against: {@link dev.ratelimit.http.KeyResolver} (for {@code keyResolverClass}) and the
 * {@link dev.ratelimit.http.RequestView} it reads, and {@link dev.ratelimit.http.Usage}, the attribute a
 * handler reports a request's real cost in ({@code chargeAfter}). Below it, one package per concern: the settings
 * ({@code settings}), who the client is ({@code client}), the decision flow ({@code pipeline}), the
 * answer ({@code answer}), a webapp's policies ({@code webapp}) and the status page
 * ({@code status}). An adapter wraps its request in a {@code RequestView} and writes the admission
 * back, nothing more.
 */
package dev.ratelimit.http;
