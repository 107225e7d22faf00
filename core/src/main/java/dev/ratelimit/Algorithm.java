package dev.ratelimit;

import dev.ratelimit.internal.ConfigNames;

/**
 * The ways a {@link Rule} can count requests. Each runs in Redis as one Lua script.
 *
 * <table>
 *   <caption>Algorithms and their trade-offs</caption>
 *   <tr><th>algorithm</th><th>state per key</th><th>exact?</th><th>memory per key</th></tr>
 *   <tr><td>{@code fixed-window}</td><td>one counter per window</td>
 *       <td>yes within a window; up to twice the limit across a window edge</td><td>O(1)</td></tr>
 *   <tr><td>{@code sliding-log}</td><td>sorted set of admitted requests</td><td>yes</td>
 *       <td>O(limit)</td></tr>
 *   <tr><td>{@code sliding-window}</td><td>current and previous counters, weighted</td>
 *       <td>approximate: exact within one window, at most twice the limit in any window-long
 *       interval</td><td>O(1)</td></tr>
 *   <tr><td>{@code token-bucket}</td><td>tokens and time of last refill</td><td>yes</td>
 *       <td>O(1)</td></tr>
 *   <tr><td>{@code leaky-bucket}</td><td>level and time of last leak</td><td>yes</td>
 *       <td>O(1)</td></tr>
 *   <tr><td>{@code gcra}</td><td>theoretical arrival time</td><td>yes</td><td>O(1)</td></tr>
 * </table>
 */
public enum Algorithm {
    /** Counts requests in consecutive windows that start with a client's first request. */
    FIXED_WINDOW("fixed-window", false),
    /** Remembers each admitted request for one window; the default, exact at any instant. */
    SLIDING_LOG("sliding-log", false),
    /** Weights the previous window's count by how much of it still overlaps the sliding window. */
    SLIDING_WINDOW("sliding-window", false),
    /** A bucket of {@code burst} tokens refilled at {@code limit} per {@code window}. */
    TOKEN_BUCKET("token-bucket", true),
    /** A bucket of size {@code burst} that drains at {@code limit} per {@code window}. */
    LEAKY_BUCKET("leaky-bucket", true),
    /** Generic cell rate algorithm: a token bucket kept as one timestamp. */
    GCRA("gcra", true);

    private final String configName;
    private final boolean usesBurst;

    Algorithm(String configName, boolean usesBurst) {
        this.configName = configName;
        this.usesBurst = usesBurst;
    }

    /** The name used in configuration, e.g. {@code sliding-log}. */
    public String configName() {
        return configName;
    }

    /**
     * Whether {@code burst} means something for this algorithm. For the window algorithms the
     * capacity is always the limit.
     */
    public boolean usesBurst() {
        return usesBurst;
    }

    /**
     * Whether the algorithm admits exactly {@code limit} requests under any concurrency
     * ({@code sliding-window} is an estimate).
     */
    public boolean isExact() {
        return this != SLIDING_WINDOW;
    }

    /**
     * Finds an algorithm by its configuration name.
     *
     * @param name a name such as {@code token-bucket}; case and surrounding blanks are ignored
     * @return the algorithm
     * @throws IllegalArgumentException if no algorithm has that name; the message lists the names
     */
    public static Algorithm fromConfigName(String name) {
        return ConfigNames.find("algorithm", values(), Algorithm::configName, name);
    }

    static String names() {
        return ConfigNames.list(values(), Algorithm::configName);
    }

    @Override
    public String toString() {
        return configName;
    }
}
