/**
 * What an admission holds in Redis and may give back: a {@link dev.ratelimit.internal.claim.Receipt} of its
 * permits (for refunds) and a {@link dev.ratelimit.internal.claim.ConcurrencyLease} in flight (for {@code concurrency}).
 * Plain values, carried inside a {@code Decision}. Not API.
 */
package dev.ratelimit.internal.claim;
