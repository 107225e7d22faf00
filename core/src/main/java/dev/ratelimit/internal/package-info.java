/**
 * The implementation: the one seam to Redis ({@link dev.ratelimit.internal.RedisGateway}), the
 * evaluators that make one decision in one round trip, scripts, caches, the circuit breaker and
 * small helpers. Not API: anything here may change in any release; code against
 * {@link dev.ratelimit} and its other packages.
 */
package dev.ratelimit.internal;
