package dev.ratelimit;

import dev.ratelimit.internal.support.Immutable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * What a limiter decided in the last five minutes, second by second, and which clients it denied
 * most: an immutable snapshot, taken by {@link RateLimiter#recentActivity()}. It is this node's
 * view only (other nodes sharing the Redis keep their own), kept in memory whether Redis answers
 * or not.
 */
public final class RecentActivity {
    /** How many seconds the series cover: 300, five minutes. */
    public static final int SECONDS = 300;

    private final long startSecond;
    private final long[] allowed;
    private final long[] denied;
    private final long[] degraded;
    private final List<DeniedKey> mostDenied;

    /**
     * @param series allowed, denied and degraded per second, oldest first
     * @param mostDenied the keys denied most and their denials, most denied first
     */
    RecentActivity(long startSecond, long[][] series, Map<String, Long> mostDenied) {
        this.startSecond = startSecond;
        this.allowed = series[0];
        this.denied = series[1];
        this.degraded = series[2];
        List<DeniedKey> keys = new ArrayList<>(mostDenied.size());
        mostDenied.forEach((key, denials) -> keys.add(new DeniedKey(key, denials)));
        this.mostDenied = Immutable.copyOf(keys);
    }

    /** A client key and how often it was denied. */
    public static final class DeniedKey {
        private final String key;
        private final long denials;

        DeniedKey(String key, long denials) {
            this.key = key;
            this.denials = denials;
        }

        /**
         * The client key as the limiter was given it: secret parts of HTTP keys (headers, params,
         * cookies, sessions) are already digests there. A key longer than 128 bytes or holding
         * characters outside printable ASCII is shown as the digest Redis stores instead.
         */
        public String key() {
            return key;
        }

        /**
         * Its denials in the last five minutes; may be slightly above the true count when many
         * distinct keys were denied (the count is kept in bounded memory), never below it.
         */
        public long denials() {
            return denials;
        }

        @Override
        public String toString() {
            return key + "=" + denials;
        }
    }

    /** The epoch second of the first value of each series; the last one is the current second. */
    public long startSecond() {
        return startSecond;
    }

    /** {@link #startSecond()} as an instant. */
    public Instant start() {
        return Instant.ofEpochSecond(startSecond);
    }

    /** Decisions that allowed, per second, oldest first ({@link #SECONDS} values), degraded ones included. */
    public long[] allowedPerSecond() {
        return allowed.clone();
    }

    /** Decisions that denied, per second, oldest first, degraded and local-cache ones included. */
    public long[] deniedPerSecond() {
        return denied.clone();
    }

    /** Decisions made by the failure policy because Redis could not be asked, per second, oldest first. */
    public long[] degradedPerSecond() {
        return degraded.clone();
    }

    /** Allowed decisions in the five minutes. */
    public long allowed() {
        return LongStream.of(allowed).sum();
    }

    /** Denied decisions in the five minutes. */
    public long denied() {
        return LongStream.of(denied).sum();
    }

    /** Degraded decisions in the five minutes. */
    public long degraded() {
        return LongStream.of(degraded).sum();
    }

    /** The clients denied most in the last five minutes (at most 10), most denied first. */
    public List<DeniedKey> mostDenied() {
        return mostDenied;
    }

    @Override
    public String toString() {
        return "last " + SECONDS + " s: allowed " + allowed() + ", denied " + denied() + ", degraded " + degraded()
                + ", most denied " + mostDenied;
    }
}
