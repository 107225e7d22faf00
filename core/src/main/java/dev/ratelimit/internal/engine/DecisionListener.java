package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RedisFailureException;

/**
 * Who hears what a limiter does, beyond its own counts: the API's {@code RateLimitListener}s,
 * joined into one by the API (the engine does not name them: they also hear of the limiter they
 * serve). Called on the decision path: it must not throw.
 */
public interface DecisionListener {
    /** Hears nothing: a limiter without listeners. */
    DecisionListener NONE = new DecisionListener() { };

    /** A decision handed out; {@code cachedDenial} when the local deny cache answered it. */
    default void decided(String key, Decision decision, boolean cachedDenial) {
    }

    /** A Redis call for a decision answered, and took this long. */
    default void redisLatency(long nanos) {
    }

    /** Redis could not be asked; the failure policy's decision follows. */
    default void redisFailed(String key, RedisFailureException failure) {
    }
}
