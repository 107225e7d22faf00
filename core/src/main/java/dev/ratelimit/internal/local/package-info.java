/**
 * Decisions made in this JVM alone: the local limiter that answers while Redis cannot be asked
 * ({@code onRedisFailure=local}; each algorithm redone in Java, bounded in clients and time). Not
 * API. (The deny cache that answers a known denial lives with its one user, the engine's
 * {@code RememberedDenials}.)
 */
package dev.ratelimit.internal.local;
