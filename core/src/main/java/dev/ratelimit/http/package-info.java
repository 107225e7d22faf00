/**
 * What every HTTP adapter (the servlet filter, JAX-RS, either servlet namespace) shares, with no
 * servlet or JAX-RS type: the settings ({@link dev.ratelimit.http.Settings}, read into an
 * {@link dev.ratelimit.http.HttpPolicy} by {@link dev.ratelimit.http.PolicyReader}), the decision
 * flow ({@link dev.ratelimit.http.RateLimitPipeline} and its {@link dev.ratelimit.http.Admission}),
 * a policy's lifecycle ({@link dev.ratelimit.http.Webapp}, {@link dev.ratelimit.http.PolicyRuntime}),
 * how a request becomes a client key ({@link dev.ratelimit.http.KeyResolver},
 * {@link dev.ratelimit.http.TrustedProxies}) and how a decision reads over HTTP
 * ({@link dev.ratelimit.http.HttpAnswer}). An adapter wraps its request in a
 * {@link dev.ratelimit.http.RequestView} and writes the admission back, nothing more.
 */
package dev.ratelimit.http;
