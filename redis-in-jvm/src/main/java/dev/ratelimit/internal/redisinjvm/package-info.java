/**
 * Redis in the JVM: a keyspace with Redis' types, replies and TTLs on a manual clock, and Redis'
 * Lua 5.1 scripting over it, so that the limiter's production scripts run here as they run in
 * Redis. Not an API: the engine of {@code ratelimit-test-kit} and of the core's own tests, held to
 * a real Redis by their parity tests. It depends on nothing of this project's.
 */
package dev.ratelimit.internal.redisinjvm;
