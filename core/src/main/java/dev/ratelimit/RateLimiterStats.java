package dev.ratelimit;

/**
 * A limiter's counts since it was built, and the latency of its recent Redis calls: what the JMX
 * bean shows. An immutable snapshot.
 */
public final class RateLimiterStats {
    private final long allowed;
    private final long denied;
    private final long degraded;
    private final long localCacheDenials;
    private final long redisErrors;
    private final long redisLatencyP50Micros;
    private final long redisLatencyP99Micros;
    private final String circuitBreakerState;

    RateLimiterStats(long allowed, long denied, long degraded, long localCacheDenials, long redisErrors,
            long redisLatencyP50Micros, long redisLatencyP99Micros, String circuitBreakerState) {
        this.allowed = allowed;
        this.denied = denied;
        this.degraded = degraded;
        this.localCacheDenials = localCacheDenials;
        this.redisErrors = redisErrors;
        this.redisLatencyP50Micros = redisLatencyP50Micros;
        this.redisLatencyP99Micros = redisLatencyP99Micros;
        this.circuitBreakerState = circuitBreakerState;
    }

    /** Requests granted, degraded ones included. */
    public long allowed() {
        return allowed;
    }

    /** Requests refused, degraded and local-cache ones included. */
    public long denied() {
        return denied;
    }

    /** Requests decided by the failure policy because Redis could not be asked. */
    public long degraded() {
        return degraded;
    }

    /** Denials answered by the local deny cache, without Redis. */
    public long localCacheDenials() {
        return localCacheDenials;
    }

    /** Failures to ask Redis. */
    public long redisErrors() {
        return redisErrors;
    }

    /** Median latency of the recent Redis calls (the last 1,024), in microseconds; 0 before any. */
    public long redisLatencyP50Micros() {
        return redisLatencyP50Micros;
    }

    /** 99th percentile of the recent Redis calls, in microseconds; 0 before any. */
    public long redisLatencyP99Micros() {
        return redisLatencyP99Micros;
    }

    /** CLOSED, OPEN or HALF_OPEN. */
    public String circuitBreakerState() {
        return circuitBreakerState;
    }

    @Override
    public String toString() {
        return "allowed " + allowed + ", denied " + denied + ", degraded " + degraded + ", local cache denials "
                + localCacheDenials + ", Redis errors " + redisErrors + ", Redis p50 " + redisLatencyP50Micros
                + " us, p99 " + redisLatencyP99Micros + " us, breaker " + circuitBreakerState;
    }
}
