package dev.ratelimit.internal.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A class's logger under the name it had before the implementation moved below
 * {@code dev.ratelimit.internal}: operators' logging configurations and the docs name these
 * categories, and a move between packages must not send a log line to another one.
 */
public final class Loggers {
    private Loggers() {
    }

    /** {@code dev.ratelimit.internal.http.pipeline.RateLimitPipeline} logs as {@code dev.ratelimit.http.pipeline.RateLimitPipeline}. */
    public static Logger of(Class<?> type) {
        return LoggerFactory.getLogger(type.getName().replace(".internal.", "."));
    }
}
