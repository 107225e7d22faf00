package dev.ratelimit.internal.engine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logger a limiter writes to, whichever part of the engine speaks: named
 * {@code dev.ratelimit.RateLimiter}, the category operators already configure, so that moving
 * code between packages never moves a log line to another category.
 */
final class LimiterLog {
    /** The API class's name, written out: the engine does not link the API it serves. */
    static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RateLimiter");

    private LimiterLog() {
    }
}
