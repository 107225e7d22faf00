package dev.ratelimit.support;

/**
 * What a store's Redis said, when last asked, about evicting keys: whether a master may evict (or
 * has evicted) the limiter's keys, the keys evicted since the store started, and the
 * {@code maxmemory-policy} read. The value the transport hands up to the statistics, the JMX bean
 * and the status page, so that none of them asks Redis. Immutable.
 */
public final class EvictionFinding {
    /** The code of the finding in the log and on the status page, explained in {@code docs/troubleshooting.md}. */
    public static final String CODE = "EVICTING_REDIS";
    /** Before Redis has said anything, or when it cannot (a gateway that reads no INFO). */
    public static final EvictionFinding UNKNOWN = new EvictionFinding(null, -1, "unknown");

    private final String finding;
    private final long evictedKeys;
    private final String maxmemoryPolicy;

    /**
     * @param finding what may happen or has happened to the limits and what to set; null when no
     *     master may evict and none has evicted since the store started
     * @param evictedKeys keys evicted since the store started, on the masters that said; -1 when none said
     * @param maxmemoryPolicy the policy read, per master where they differ, or {@code unknown}
     */
    public EvictionFinding(String finding, long evictedKeys, String maxmemoryPolicy) {
        this.finding = finding;
        this.evictedKeys = evictedKeys;
        this.maxmemoryPolicy = java.util.Objects.requireNonNull(maxmemoryPolicy, "maxmemoryPolicy");
    }

    /** What may happen or has happened to the limits, and what to set; null when safe or unknown. */
    public String finding() {
        return finding;
    }

    /** Keys evicted since the store started (every key of that Redis, not only the limiter's); -1 when unknown. */
    public long evictedKeys() {
        return evictedKeys;
    }

    /** The {@code maxmemory-policy} read, e.g. {@code noeviction}, per master where they differ, or {@code unknown}. */
    public String maxmemoryPolicy() {
        return maxmemoryPolicy;
    }

    @Override
    public String toString() {
        return finding != null ? finding : "maxmemory-policy " + maxmemoryPolicy + ", evicted keys " + evictedKeys;
    }
}
