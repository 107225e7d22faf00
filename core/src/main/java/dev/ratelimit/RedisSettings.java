package dev.ratelimit;

import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * How to reach one Redis: immutable, validated in {@link Builder#build()}. Two settings that are
 * {@link #equals equal} can share one client. {@link #toString()} never shows the password.
 *
 * <pre>{@code
 * RedisSettings settings = RedisSettings.builder("redis://:secret@redis.internal:6379/2")
 *         .timeout(Duration.ofMillis(200))
 *         .poolSize(32)
 *         .build();
 * }</pre>
 */
public final class RedisSettings {
    /** Connect and socket timeout unless set: short, so a sick Redis cannot hold request threads. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(200);
    /** Most pooled connections unless set. */
    public static final int DEFAULT_POOL_SIZE = 32;
    /** Consecutive failures to reach Redis that open the circuit breaker, unless set. */
    public static final int DEFAULT_BREAKER_FAILURES = 3;
    /**
     * How long an open breaker stops calls before one probe, unless set: short enough that limiting is exact again
     * within a second of Redis answering (cool-down plus one timeout), long enough that a dead Redis costs one probe's
     * wait per node twice a second.
     */
    public static final Duration DEFAULT_BREAKER_COOL_DOWN = Duration.ofMillis(500);
    /** Whether concurrent script calls to one node share round trips unless set: see {@link Builder#coalescing}. */
    public static final boolean DEFAULT_COALESCING = true;

    private final RedisAddress address;
    private final Duration timeout;
    private final int poolSize;
    private final Duration poolMaxWait;
    private final String sentinelMaster;
    private final List<String> sentinelNodes;
    private final List<String> clusterNodes;
    private final int breakerFailures;
    private final Duration breakerCoolDown;
    private final boolean coalescing;

    private RedisSettings(Builder builder, RedisAddress address) {
        this.address = address;
        this.timeout = builder.timeout;
        this.poolSize = builder.poolSize;
        this.poolMaxWait = builder.poolMaxWait != null ? builder.poolMaxWait : builder.timeout;
        this.sentinelMaster = builder.sentinelMaster;
        this.sentinelNodes = builder.sentinelNodes;
        this.clusterNodes = builder.clusterNodes;
        this.breakerFailures = builder.breakerFailures;
        this.breakerCoolDown = builder.breakerCoolDown;
        this.coalescing = builder.coalescing;
    }

    /** Settings for a URI with every default. */
    public static RedisSettings of(String uri) {
        return builder(uri).build();
    }

    /**
     * Starts settings for {@code redis://[user:password@]host[:port][/database]}, or
     * {@code rediss://} for TLS; in tests, {@code test-only-redis://<name>} for the test kit's Redis
     * in the JVM (letters, digits, '-' and '_'), never deployed.
     */
    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    public String host() {
        return address.host;
    }

    public int port() {
        return address.port;
    }

    /** Whether the connection uses TLS ({@code rediss://}). */
    public boolean tls() {
        return address.tls;
    }

    /**
     * The name of the test kit's Redis in the JVM for {@code test-only-redis://<name>}, or null for
     * a real Redis. Such settings are for tests only: see {@code ratelimit-test-kit}.
     */
    public String testOnlyName() {
        return address.testOnlyName;
    }

    /** The ACL user, or null for the default user. */
    public String user() {
        return address.user;
    }

    /** The password, or null. Never logged by this library. */
    public String password() {
        return address.password;
    }

    public int database() {
        return address.database;
    }

    /** Connect and socket timeout. */
    public Duration timeout() {
        return timeout;
    }

    /** The most connections the pool opens. */
    public int poolSize() {
        return poolSize;
    }

    /** How long a request waits for a free pooled connection before failing; the timeout unless set. */
    public Duration poolMaxWait() {
        return poolMaxWait;
    }

    /** The Sentinel master name, or null when not using Sentinel. */
    public String sentinelMaster() {
        return sentinelMaster;
    }

    /** The Sentinels as {@code host:port}; empty when not using Sentinel. */
    public List<String> sentinelNodes() {
        return sentinelNodes;
    }

    /** Cluster seed nodes as {@code host:port}; empty when not using Cluster. */
    public List<String> clusterNodes() {
        return clusterNodes;
    }

    /** The URI with user and password replaced by {@code ****}: safe for logs and messages. */
    public String redactedUri() {
        return address.toString();
    }

    /** Every value, the password too: what makes two settings equal, so that they can share a client. */
    private List<Object> values() {
        return Arrays.asList(address.host, address.port, address.tls, address.user, address.password,
                address.database, timeout, poolSize, poolMaxWait, sentinelMaster,
                sentinelNodes, clusterNodes, breakerFailures, breakerCoolDown, coalescing);
    }

    @Override
    public boolean equals(Object other) {
        return other == this || other instanceof RedisSettings && values().equals(((RedisSettings) other).values());
    }

    @Override
    public int hashCode() {
        return values().hashCode();
    }

    /** Consecutive failures to reach Redis that open the circuit breaker. */
    public int breakerFailures() {
        return breakerFailures;
    }

    /** How long an open breaker stops all calls before letting one probe through. */
    public Duration breakerCoolDown() {
        return breakerCoolDown;
    }

    /** Whether concurrent script calls to one node share round trips: see {@link Builder#coalescing}. */
    public boolean coalescing() {
        return coalescing;
    }

    /** Where Redis is, without secrets: for logs and error messages. */
    public String location() {
        return sentinelMaster != null ? "sentinel master " + sentinelMaster + " at " + String.join(",", sentinelNodes)
                : !clusterNodes.isEmpty() ? "cluster at " + String.join(",", clusterNodes) : redactedUri();
    }

    @Override
    public String toString() {
        return location() + " (timeout " + Durations.format(timeout) + ", pool " + poolSize + ", pool wait "
                + Durations.format(poolMaxWait) + (coalescing ? "" : ", coalescing off") + ")";
    }

    /** Collects settings; {@link #build()} checks them all. */
    public static final class Builder {
        private final String uri;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration poolMaxWait;
        private String sentinelMaster;
        private List<String> sentinelNodes = Immutable.listOf();
        private List<String> clusterNodes = Immutable.listOf();
        private int breakerFailures = DEFAULT_BREAKER_FAILURES;
        private Duration breakerCoolDown = DEFAULT_BREAKER_COOL_DOWN;
        private boolean coalescing = DEFAULT_COALESCING;

        private Builder(String uri) {
            this.uri = uri;
        }

        /** Connect and socket timeout; default {@link RedisSettings#DEFAULT_TIMEOUT}. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** The most pooled connections; default {@value RedisSettings#DEFAULT_POOL_SIZE}. */
        public Builder poolSize(int poolSize) {
            this.poolSize = poolSize;
            return this;
        }

        /** The longest wait for a pooled connection; default: the timeout. */
        public Builder poolMaxWait(Duration poolMaxWait) {
            this.poolMaxWait = poolMaxWait;
            return this;
        }

        /**
         * The circuit breaker: after {@code failures} consecutive failures to reach Redis, no call
         * goes out for {@code coolDown}, then one probe. Defaults: 3 and 500 ms.
         */
        public Builder circuitBreaker(int failures, Duration coolDown) {
            this.breakerFailures = failures;
            this.breakerCoolDown = coolDown;
            return this;
        }

        /**
         * Whether decisions that wait for one Redis node at the same moment travel together, as one pipeline: Redis
         * then reads, parses and answers them in one go, which costs it much less CPU per decision than one round trip
         * each. A decision that finds Redis idle still goes at once, alone; others queue only while the node is busy,
         * for at most the rest of a round trip. Applies to stores made by {@link RedisStore#connect(RedisSettings)}.
         * Default {@value RedisSettings#DEFAULT_COALESCING}.
         */
        public Builder coalescing(boolean coalescing) {
            this.coalescing = coalescing;
            return this;
        }

        /**
         * Reaches the master named {@code master} through the Sentinels {@code nodes} ({@code host:port}); the URI
         * then gives only user, password, database and TLS.
         */
        public Builder sentinel(String master, List<String> nodes) {
            this.sentinelMaster = master;
            this.sentinelNodes = nodes == null ? null : Immutable.copyOf(nodes);
            return this;
        }

        /**
         * Uses Redis Cluster from some of its {@code nodes} ({@code host:port}; the rest are discovered); the URI
         * then gives only user, password and TLS.
         */
        public Builder cluster(List<String> nodes) {
            this.clusterNodes = nodes == null ? null : Immutable.copyOf(nodes);
            return this;
        }

        /** @throws IllegalArgumentException naming the bad setting and its value (password hidden) */
        public RedisSettings build() {
            RedisAddress address = RedisAddress.parse(uri);
            if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new BadArgument("redisTimeout", "redisTimeout must be between 1ms and 1m, but was "
                        + (timeout == null ? "null" : Durations.format(timeout)));
            }
            if (poolSize < 1 || poolSize > 10_000) {
                throw new BadArgument("redisPoolSize", "redisPoolSize must be between 1 and 10000, but was " + poolSize);
            }
            if (poolMaxWait != null && (poolMaxWait.isNegative() || poolMaxWait.compareTo(Duration.ofMinutes(1)) > 0)) {
                throw new BadArgument("redisPoolMaxWait", "redisPoolMaxWait must be between 0ms and 1m, but was "
                        + Durations.format(poolMaxWait));
            }
            address.checkTopology(sentinelMaster, sentinelNodes, clusterNodes);
            if (breakerFailures < 1 || breakerCoolDown == null || breakerCoolDown.isNegative() || breakerCoolDown.isZero()
                    || breakerCoolDown.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new BadArgument("circuitBreaker", "circuitBreaker must open after at least 1 failure for 1ms to 10m, "
                        + "but was " + breakerFailures + " failures for "
                        + (breakerCoolDown == null ? "null" : Durations.format(breakerCoolDown)));
            }
            return new RedisSettings(this, address);
        }
    }
}
