/**
 * What the servlet filter and the JAX-RS filter share, with no servlet or JAX-RS type: the
 * configuration words ({@link dev.ratelimit.http.HttpPolicy}), how a request becomes a client key
 * ({@link dev.ratelimit.http.KeyResolver}, {@link dev.ratelimit.http.TrustedProxies}) and how a
 * decision becomes an HTTP answer ({@link dev.ratelimit.http.HttpAnswer}). Each adapter only wraps
 * its request in a {@link dev.ratelimit.http.RequestView} and writes the answer back.
 */
package dev.ratelimit.http;
