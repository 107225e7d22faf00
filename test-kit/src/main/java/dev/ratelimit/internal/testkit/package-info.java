/**
 * The test kit's side of {@code test-only-redis://}: the gateway the core finds by name, and the
 * JVM-wide Redis per name behind it. Not an API: users hold {@link dev.ratelimit.testkit.TestOnlyRedis}.
 */
package dev.ratelimit.internal.testkit;
