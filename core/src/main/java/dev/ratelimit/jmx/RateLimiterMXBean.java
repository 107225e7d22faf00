package dev.ratelimit.jmx;

/**
 * What a JMX console shows for one policy, under
 * {@code dev.ratelimit:type=RateLimiter,webapp=<context path>,policy=<name>}.
 */
public interface RateLimiterMXBean {
    String getPolicyName();

    /** Requests granted since start, degraded ones included. */
    long getAllowed();

    /** Requests refused since start, degraded and local-cache ones included. */
    long getDenied();

    /** Requests decided by onRedisFailure because Redis could not be asked. */
    long getDegraded();

    /** Denials answered by the local deny cache without Redis. */
    long getLocalCacheDenials();

    /** Failures to ask Redis. */
    long getRedisErrors();

    /** Median latency of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyP50Micros();

    /** 99th percentile latency of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyP99Micros();

    /** CLOSED, OPEN or HALF_OPEN. */
    String getCircuitBreakerState();

    /** The effective configuration, password masked. */
    String getConfiguration();
}
