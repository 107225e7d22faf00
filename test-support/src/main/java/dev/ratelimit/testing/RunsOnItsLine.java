package dev.ratelimit.testing;

import org.junit.jupiter.api.Test;

/**
 * A line suite ({@code RedisLine*IT}): a contract run on the server line the build names
 * ({@link RedisLine}), which first makes sure the server it got is that line.
 */
public interface RunsOnItsLine {
    /** The suite's server, from {@link RedisServerExtension#line()}. */
    RedisServerExtension redis();

    /** Without this a suite could pass on another binary and prove nothing about its line. */
    @Test
    default void runsOnItsLine() {
        String product = redis().serverProduct();
        if (!RedisLine.current().isServedBy(product)) {
            throw new AssertionError(product + " is not the line " + RedisLine.current());
        }
    }
}
