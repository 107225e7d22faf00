package dev.ratelimit;

import dev.ratelimit.internal.support.EvictionFinding;
import dev.ratelimit.internal.support.LatencySamples;
import dev.ratelimit.internal.support.ServerIdentity;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A limiter's counts since it was built, the latency of its recent Redis calls, and what its Redis
 * last said about evicting keys and which server it is (Redis or Valkey): what the JMX bean shows.
 * An immutable snapshot; taking one never asks Redis.
 */
public final class RateLimiterStats {
    /**
     * Allowed, denied, degraded, local cache denials, lease admissions, penalties, penalty denials, delayed
     * admissions, Redis errors and refusals.
     */
    private final long[] counts;
    /** After-charges that took permits, those permits, charges that failed, give-backs Redis applied nothing of. */
    private final long[] charges;
    private final String redisRefusal;
    private final LatencySamples.Snapshot latency;
    private final String circuitBreakerState;
    private final EvictionFinding eviction;

    RateLimiterStats(long[] counts, long[] charges, String redisRefusal, LatencySamples.Snapshot latency,
            String circuitBreakerState, EvictionFinding eviction) {
        this.counts = counts.clone();
        this.charges = charges.clone();
        this.redisRefusal = redisRefusal;
        this.latency = latency;
        this.circuitBreakerState = circuitBreakerState;
        this.eviction = eviction;
    }

    /** Requests granted, degraded ones included. */
    public long allowed() {
        return counts[0];
    }

    /** Requests refused, degraded and local-cache ones included. */
    public long denied() {
        return counts[1];
    }

    /** Requests decided by the failure policy because Redis could not be asked. */
    public long degraded() {
        return counts[2];
    }

    /** Denials answered by the local deny cache, without Redis. */
    public long localCacheDenials() {
        return counts[3];
    }

    /**
     * Admissions made from quota leases this node holds, without a round trip (included in
     * {@link #allowed()}); 0 unless the limiter was built with {@code leases(true)}.
     */
    public long leaseAdmissions() {
        return counts[4];
    }

    /**
     * How many times Redis put a client in the penalty box ({@link Rule#penalty()}) because it went
     * over the limit; 0 without a penalty.
     */
    public long penalties() {
        return counts[5];
    }

    /**
     * Denials by the penalty box (included in {@link #denied()}): those that put a client in it and
     * those while it was there, from Redis or the local deny cache; 0 without a penalty.
     */
    public long penaltyDenials() {
        return counts[6];
    }

    /**
     * Admissions for an instant ahead (included in {@link #allowed()}): requests over the limit whose
     * turn came within the caller's {@code maxDelay} ({@link RateLimiter#tryAcquire(String, java.time.Duration)}).
     */
    public long delayedAdmissions() {
        return counts[7];
    }

    /**
     * After-charges ({@link RateLimiter#charge}, HTTP's {@code chargeAfter}) that took permits beyond
     * what their admission took; those that gave part back are not counted.
     */
    public long afterCharges() {
        return charges[0];
    }

    /** The permits {@link #afterCharges()} took beyond their admissions'. */
    public long permitsCharged() {
        return charges[1];
    }

    /** After-charges that failed to reach Redis: the client kept what its admission took. */
    public long chargeFailures() {
        return charges[2];
    }

    /**
     * Give-backs ({@link RateLimiter#refund}, {@code countStatus}, a usage below the cost) that Redis
     * answered without giving anything back: the permits had already left the client's state (its
     * window passed, it was reset, Redis restarted without its data), or could not be placed exactly
     * where later requests were taken after them; they stay taken until the state frees them (erring
     * toward denying, never toward admitting more).
     */
    public long refundsKept() {
        return charges[3];
    }

    /**
     * Failures to ask Redis that may pass by themselves: timeouts, lost connections, error replies
     * such as a failover's {@code READONLY}. Refusals are counted apart ({@link #redisRefusals()}).
     */
    public long redisErrors() {
        return counts[8];
    }

    /**
     * Error replies that waiting will not cure ({@link RedisFailureException#remedy()}): a user
     * that may not run scripts, wrong credentials, an unknown command.
     */
    public long redisRefusals() {
        return counts[9];
    }

    /**
     * The refusal in force, with what to do about it; null unless Redis refused since it last
     * decided.
     */
    public String redisRefusal() {
        return redisRefusal;
    }

    /** Median latency of the recent Redis calls (the last 1,024), in microseconds; 0 before any. */
    public long redisLatencyP50Micros() {
        return latency.percentileMicros(0.50);
    }

    /** 99th percentile of the recent Redis calls, in microseconds; 0 before any. */
    public long redisLatencyP99Micros() {
        return latency.percentileMicros(0.99);
    }

    /** 90th percentile of the recent Redis calls, in microseconds; 0 before any. */
    public long redisLatencyP90Micros() {
        return latency.percentileMicros(0.90);
    }

    /** The slowest of the recent Redis calls, in microseconds; 0 before any. */
    public long redisLatencyMaxMicros() {
        return latency.maxMicros();
    }

    /** How many recent Redis calls the percentiles are taken from (at most 1,024). */
    public int redisLatencySamples() {
        return latency.count();
    }

    /** CLOSED, OPEN or HALF_OPEN. */
    public String circuitBreakerState() {
        return circuitBreakerState;
    }

    /**
     * Whether Redis may evict the limiter's keys, and what to set: null when every master that holds
     * them has {@code maxmemory-policy noeviction} (or no {@code maxmemory}) and none evicted keys
     * since the store started, and null too while Redis has not said (not reached yet, a user that
     * may not run INFO, an empty policy: then {@link #redisMaxmemoryPolicy()} is {@code unknown}).
     * Otherwise it names the master and its policy: an evicted key forgets a client's count, so that
     * client gets its full limit again; the fix is {@code maxmemory-policy noeviction} on that Redis,
     * or a Redis of the limiter's own. Read when the store's first limiter is built and at most every
     * 5 minutes after, by a decision; logged once per master with the code {@code EVICTING_REDIS}.
     */
    public String redisEviction() {
        return eviction.finding();
    }

    /**
     * Keys Redis evicted since the store started, on every master that said: every key of that Redis,
     * not only the limiter's, counted from the first reading ({@code evicted_keys} of {@code INFO stats}),
     * and from 0 again on a master that restarted. -1 while no master has said.
     */
    public long redisEvictedKeys() {
        return eviction.evictedKeys();
    }

    /**
     * Which server holds the limiter's keys, as it said of itself in {@code INFO server}, e.g.
     * {@code Redis 7.0.15} or {@code Valkey 9.1.2} (Valkey reports {@code redis_version:7.2.4} too;
     * this is its own version); each master's where they differ (during a rolling upgrade);
     * {@code unknown} while no master has said (not read yet, a user that may not run INFO). Read
     * with the eviction settings, in the same round trip.
     */
    public String redisServer() {
        return eviction.server();
    }

    /**
     * Which server each master is, by its address ({@code host:port}; a caller's own client's
     * description when the library cannot see its address), in the order read: {@code Valkey 9.1.2},
     * {@code Redis 7.0.15} or {@code unknown}. Empty before the first reading.
     */
    public Map<String, String> redisServers() {
        Map<String, String> servers = new LinkedHashMap<>();
        for (Map.Entry<String, ServerIdentity> master : eviction.servers().entrySet()) {
            servers.put(master.getKey(), master.getValue().toString());
        }
        return Collections.unmodifiableMap(servers);
    }

    /**
     * The {@code maxmemory-policy} Redis reported, e.g. {@code noeviction} or {@code volatile-lru};
     * {@code <policy> without maxmemory} when no memory limit makes it evict; each master's where
     * they differ; {@code unknown} while Redis has not said.
     */
    public String redisMaxmemoryPolicy() {
        return eviction.maxmemoryPolicy();
    }

    @Override
    public String toString() {
        return "allowed " + allowed() + ", denied " + denied() + ", degraded " + degraded() + ", local cache denials "
                + localCacheDenials() + ", lease admissions " + leaseAdmissions() + ", penalties " + penalties()
                + ", penalty denials " + penaltyDenials() + ", Redis errors " + redisErrors()
                + ", Redis refusals " + redisRefusals() + ", Redis p50 " + redisLatencyP50Micros()
                + " us, p90 " + redisLatencyP90Micros() + " us, p99 " + redisLatencyP99Micros() + " us, max "
                + redisLatencyMaxMicros() + " us (of " + redisLatencySamples() + " calls), breaker " + circuitBreakerState
                + ", maxmemory-policy " + eviction.maxmemoryPolicy() + ", evicted keys " + eviction.evictedKeys()
                + ", server " + eviction.server();
    }
}
