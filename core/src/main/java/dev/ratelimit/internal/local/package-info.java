/**
 * Decisions made in this JVM alone: the local limiter that answers while Redis cannot be asked
 * ({@code onRedisFailure=local}; each algorithm redone in Java, bounded in clients and time) and the
 * deny cache that answers a known denial without Redis. Not API.
 */
package dev.ratelimit.internal.local;
