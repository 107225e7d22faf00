/**
 * What applications code against, and nothing else: {@link dev.ratelimit.RateLimiter} (built by
 * {@link dev.ratelimit.RateLimiterBuilder}) with its {@link dev.ratelimit.Rule}s and
 * {@link dev.ratelimit.Algorithm}s, the {@link dev.ratelimit.Decision} it returns, and
 * {@link dev.ratelimit.RedisStore} / {@link dev.ratelimit.RedisSettings} for where the state
 * lives. The entry points call down into {@code engine}; the values are what every layer below
 * speaks and name nothing above them. The HTTP layer is {@code dev.ratelimit.http}, counters
 * {@code dev.ratelimit.counter}, JMX {@code dev.ratelimit.internal.jmx}; every other package below this one
 * is implementation and may change in any release.
 */
package dev.ratelimit;
