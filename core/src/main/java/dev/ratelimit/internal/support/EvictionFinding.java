package dev.ratelimit.internal.support;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a store's Redis said, when last asked, about evicting keys: whether a master may evict (or
 * has evicted) the limiter's keys, the keys evicted since the store started, the
 * {@code maxmemory-policy} read, and which server each master is (Redis or Valkey, read in the same
 * round trip). The value the transport hands up to the statistics, the JMX bean and the status page,
 * so that none of them asks Redis. Immutable.
 */
public final class EvictionFinding {
    /** The code of the finding in the log and on the status page, explained in {@code docs/troubleshooting.md}. */
    public static final String CODE = "EVICTING_REDIS";
    /** Before Redis has said anything, or when it cannot (a gateway that reads no INFO). */
    public static final EvictionFinding UNKNOWN = new EvictionFinding(null, -1, "unknown",
            Collections.<Master>emptyList());

    private final String finding;
    private final long evictedKeys;
    private final String maxmemoryPolicy;
    private final Map<String, ServerIdentity> servers;
    private final String server;

    /** One master as the finding names it. */
    public static final class Master {
        final String node;
        final String where;
        final ServerIdentity server;

        /** @param where where it is, for messages: the store's location, and the node when there are several */
        public Master(String node, String where, ServerIdentity server) {
            this.node = Objects.requireNonNull(node, "node");
            this.where = Objects.requireNonNull(where, "where");
            this.server = Objects.requireNonNull(server, "server");
        }
    }

    /** The values as their accessors below say; {@code masters} in the order read. */
    public EvictionFinding(String finding, long evictedKeys, String maxmemoryPolicy, List<Master> masters) {
        this.finding = finding;
        this.evictedKeys = evictedKeys;
        this.maxmemoryPolicy = Objects.requireNonNull(maxmemoryPolicy, "maxmemoryPolicy");
        Map<String, ServerIdentity> byNode = new LinkedHashMap<>();
        Set<String> names = new LinkedHashSet<>();
        StringBuilder each = new StringBuilder();
        for (Master master : masters) {
            byNode.put(master.node, master.server);
            names.add(master.server.toString());
            each.append(each.length() == 0 ? "" : "; ").append(master.server).append(" on ").append(master.where);
        }
        this.servers = Collections.unmodifiableMap(byNode);
        // As the policy: one name when every master agrees (a rolling upgrade is when they do not).
        this.server = names.isEmpty() ? ServerIdentity.UNKNOWN.toString()
                : names.size() == 1 ? names.iterator().next() : each.toString();
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

    /**
     * Which server the masters are, e.g. {@code Valkey 9.1.2} or {@code Redis 7.0.15}: one name when
     * they agree, each master's where they differ, {@code unknown} before any said (not read yet, a
     * user that may not run INFO).
     */
    public String server() {
        return server;
    }

    /** Which server each master is, by its address ({@code host:port}), in the order read; empty before a reading. */
    public Map<String, ServerIdentity> servers() {
        return servers;
    }

    @Override
    public String toString() {
        return finding != null ? finding : "maxmemory-policy " + maxmemoryPolicy + ", evicted keys " + evictedKeys;
    }
}
