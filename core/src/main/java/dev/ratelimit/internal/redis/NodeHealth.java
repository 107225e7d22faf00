package dev.ratelimit.internal.redis;

import java.util.concurrent.TimeUnit;

/**
 * What {@link NodeGateway} knows of one node: its circuit breaker, when it last answered (a node
 * quiet for a while is doubted: its next call is the breaker's probe, see {@link NodeConnections}).
 */
final class NodeHealth {
    /** A node quiet for this long may have restarted meanwhile: its next call checks it with a PING. */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The time of the last answer is written at most this often, not on every call. */
    private static final long GRANULARITY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    final CircuitBreaker breaker;
    private volatile long lastAnswer;

    NodeHealth(CircuitBreaker breaker, long now) {
        this.breaker = breaker;
        this.lastAnswer = now;
    }

    void answered(long now) {
        if (now - lastAnswer > GRANULARITY_NANOS) {
            lastAnswer = now;
        }
    }

    /** When the node last answered, on the gateway's clock (at most a few milliseconds late). */
    long lastAnswer() {
        return lastAnswer;
    }

    /** Whether the node has been quiet long enough to be doubted ({@link CircuitBreaker#pass}). */
    boolean quiet(long now) {
        return now - lastAnswer >= QUIET_NANOS;
    }
}
