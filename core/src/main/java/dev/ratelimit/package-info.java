/**
 * What applications code against: {@link dev.ratelimit.RateLimiter} with its
 * {@link dev.ratelimit.Rule}s and {@link dev.ratelimit.Algorithm}s, the
 * {@link dev.ratelimit.Decision} it returns, and {@link dev.ratelimit.RedisStore} /
 * {@link dev.ratelimit.RedisSettings} for where the state lives. The HTTP layer is in
 * {@code dev.ratelimit.http}, counters in {@code dev.ratelimit.counter}, JMX in
 * {@code dev.ratelimit.jmx}; {@code dev.ratelimit.internal} is not API.
 */
package dev.ratelimit;
