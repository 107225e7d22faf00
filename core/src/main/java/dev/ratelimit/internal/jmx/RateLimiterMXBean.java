package dev.ratelimit.internal.jmx;

/**
 * What a JMX console shows for one policy, under
 * {@code dev.ratelimit:type=RateLimiter,webapp="<context path>",policy="<name>"}, both values quoted
 * ({@link RateLimiterJmx#name}).
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

    /** Admissions made from quota leases this node holds, without Redis (counted in allowed too). */
    long getLeaseAdmissions();

    /** Times Redis put a client in the penalty box for going over the limit; 0 without a penalty. */
    long getPenalties();

    /** Denials by the penalty box, the ones that opened it and those from the local deny cache included. */
    long getPenaltyDenials();

    /** Requests over the limit admitted for their turn ahead ({@code maxDelay}), counted in allowed too. */
    long getDelayedAdmissions();

    /** After-charges ({@code chargeAfter}) that took permits past what their admission took. */
    long getAfterCharges();

    /** The permits after-charges took past their admissions'. */
    long getPermitsCharged();

    /** After-charges that could not reach Redis: their clients kept what the admission took. */
    long getChargeFailures();

    /** Refunds Redis applied nothing of: their permits had left the client's state, or could not be placed exactly. */
    long getRefundsKept();

    /** Failures to ask Redis that may pass by themselves (timeouts, lost connections); refusals not included. */
    long getRedisErrors();

    /** Error replies that waiting will not cure: a user that may not run scripts, wrong credentials, an unknown command. */
    long getRedisRefusals();

    /** The refusal in force and what to do about it, or empty once Redis decides again. */
    String getRedisRefusal();

    /**
     * Whether Redis may evict the limiter's keys (a {@code maxmemory-policy} other than
     * {@code noeviction} with {@code maxmemory} set, or keys evicted since start), naming the master,
     * its policy and what to set; empty when not, or while Redis has not said. Read from Redis at
     * start and at most every 5 minutes, never by this attribute.
     */
    String getRedisEviction();

    /** Keys Redis evicted since start (all its keys, not only the limiter's), or -1 while Redis has not said. */
    long getRedisEvictedKeys();

    /** The maxmemory-policy Redis reported (each master's where they differ), or {@code unknown}. */
    String getRedisMaxmemoryPolicy();

    /**
     * Which server holds the limiter's keys, e.g. {@code Redis 7.0.15} or {@code Valkey 9.1.2}
     * (each master's where they differ), or {@code unknown} while none has said. Read with the
     * eviction settings, never by this attribute.
     */
    String getRedisServer();

    /** Median latency of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyP50Micros();

    /** 90th percentile latency of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyP90Micros();

    /** 99th percentile latency of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyP99Micros();

    /** The slowest of the last 1,024 Redis calls, in microseconds. */
    long getRedisLatencyMaxMicros();

    /** CLOSED, OPEN or HALF_OPEN. */
    String getCircuitBreakerState();

    /** The effective configuration, password masked. */
    String getConfiguration();

    /** The live limit override shared through Redis, or -1 when none. */
    long getLimitOverride();

    /**
     * Sets the limit for every node sharing the Redis (JMX makes this the attribute's setter).
     *
     * @throws IllegalArgumentException for a limit web.xml would refuse, with its message
     */
    void setLimitOverride(long limit);

    /** The live enforce override, or null when none. */
    Boolean getEnforceOverride();

    /** Sets enforce for every node: false makes the policy a dry run. */
    void setEnforceOverride(Boolean enforce);

    /** Removes every live override: the configured values apply again on every node. */
    void clearOverrides();

    /** Who set the overrides, from where and when; empty when none. */
    String getOverrideOrigin();

    /** The limit in force now: the override, else the configured one (adaptive limits may scale it). */
    long getEffectiveLimit();

    /** Whether denials block now: the enforce override, else the configured value. */
    boolean getEffectiveEnforce();

    /**
     * One client's state, by the value it sends (an address, a user name, an API key), keyed as the
     * policy keys its requests, in each of its limiters (its tiers'), read without taking anything:
     * e.g. {@code api: denied, 0 of 5 left, retry in 37 s, reset in 60 s}.
     *
     * @throws IllegalArgumentException when the value names no client of the policy, saying why
     * @throws IllegalStateException when Redis cannot be asked
     */
    String peekClient(String value);

    /**
     * Forgets one client, by the value it sends, in every limiter of the policy and on every node's
     * Redis state; logged at INFO with where the call came from, never with the value.
     *
     * @return what was forgotten, e.g. {@code reset in [api, api.partner]}
     * @throws IllegalArgumentException when the value names no client of the policy, saying why
     * @throws IllegalStateException when Redis cannot be asked
     */
    String resetClient(String value);
}
