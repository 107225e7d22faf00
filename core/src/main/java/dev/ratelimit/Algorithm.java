package dev.ratelimit;

import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.BucketUnits;
import dev.ratelimit.internal.support.ConfigNames;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The ways a {@link Rule} can count requests. Each runs in Redis as one Lua script.
 *
 * <table>
 *   <caption>Algorithms and their trade-offs</caption>
 *   <tr><th>algorithm</th><th>state per key</th><th>exact?</th><th>memory per key</th></tr>
 *   <tr><td>{@code fixed-window}</td><td>one counter per window</td>
 *       <td>yes within a window; up to twice the limit across a window edge</td><td>O(1)</td></tr>
 *   <tr><td>{@code sliding-log}</td><td>sorted set of admitted requests</td><td>yes</td>
 *       <td>O(limit): the requests of a window (with {@code maxDelay}, and those booked ahead), whatever
 *       their cost</td></tr>
 *   <tr><td>{@code sliding-window}</td><td>current and previous counters, weighted</td>
 *       <td>approximate: exact within one window, at most twice the limit in any window-long
 *       interval</td><td>O(1)</td></tr>
 *   <tr><td>{@code token-bucket}</td><td>tokens and time of last refill</td><td>yes</td>
 *       <td>O(1)</td></tr>
 *   <tr><td>{@code leaky-bucket}</td><td>level and time of last leak</td><td>yes</td>
 *       <td>O(1)</td></tr>
 *   <tr><td>{@code gcra}</td><td>theoretical arrival time</td><td>yes</td><td>O(1)</td></tr>
 *   <tr><td>{@code concurrency}</td><td>sorted set of the leases of requests in flight, each expiring
 *       after {@code window}</td><td>yes</td><td>O(limit)</td></tr>
 * </table>
 */
public enum Algorithm {
    /** Counts requests in consecutive windows that start with a client's first request. */
    FIXED_WINDOW("fixed-window", Algorithm::limitAndWindow, Trait.EXACT, Trait.ADAPTIVE, Trait.TRANSACTION),
    /** Remembers each admitted request for one window; the default, exact at any instant. */
    SLIDING_LOG("sliding-log", Algorithm::limitAndWindow, Trait.EXACT, Trait.ADAPTIVE, Trait.TRANSACTION),
    /** Weights the previous window's count by how much of it still overlaps the sliding window. */
    SLIDING_WINDOW("sliding-window", Algorithm::limitAndWindow, Trait.ADAPTIVE),
    /** A bucket of {@code burst} tokens refilled at {@code limit} per {@code window}. */
    TOKEN_BUCKET("token-bucket", Algorithm::bucketUnits, Trait.EXACT, Trait.BURST, Trait.UNITS),
    /** A bucket of size {@code burst} that drains at {@code limit} per {@code window}. */
    LEAKY_BUCKET("leaky-bucket", Algorithm::bucketUnits, Trait.EXACT, Trait.BURST, Trait.UNITS),
    /** Generic cell rate algorithm: a token bucket kept as one timestamp. */
    GCRA("gcra", Algorithm::emissionInterval, Trait.EXACT, Trait.BURST, Trait.ADAPTIVE, Trait.INTERVAL),
    /**
     * Not a rate but the requests in flight: at most {@code limit} requests of one client are being
     * served at once. An admission holds a lease until {@link RateLimiter#release(Decision)} gives it
     * back; {@code window} is the lease timeout, after which the lease of a node that crashed or hung
     * stops counting. One lease per request: {@code cost} is 1 and {@code burst} does not apply.
     */
    CONCURRENCY("concurrency", Algorithm::limitAndWindow, Trait.EXACT, Trait.LEASES);

    /**
     * What an algorithm accepts and promises, each said by the method that asks for it. Adding an algorithm
     * means a constant here (its traits and script arguments), its {@code <config name>.lua} script, and its
     * docs; nothing else in the code switches on algorithms.
     */
    private enum Trait {
        EXACT, BURST, ADAPTIVE, TRANSACTION, UNITS, INTERVAL, LEASES
    }

    private final String configName;
    private final Function<Rule, List<String>> scriptArguments;
    private final Set<Trait> traits;

    Algorithm(String configName, Function<Rule, List<String>> scriptArguments, Trait first, Trait... rest) {
        this.configName = configName;
        this.scriptArguments = scriptArguments;
        this.traits = Collections.unmodifiableSet(EnumSet.of(first, rest));
    }

    /** The name used in configuration, e.g. {@code sliding-log}; also its script's name. */
    public String configName() {
        return configName;
    }

    /**
     * Whether {@code burst} means something for this algorithm. For the window algorithms the
     * capacity is always the limit.
     */
    public boolean usesBurst() {
        return traits.contains(Trait.BURST);
    }

    /**
     * Whether the algorithm admits exactly {@code limit} requests under any concurrency
     * ({@code sliding-window} is an estimate).
     */
    public boolean isExact() {
        return traits.contains(Trait.EXACT);
    }

    /**
     * Whether adaptive limits may scale it ({@code token-bucket} and {@code leaky-bucket} keep their
     * tokens in units of the configured rate, which a scaled limit would misread).
     */
    public boolean adapts() {
        return traits.contains(Trait.ADAPTIVE);
    }

    /**
     * Whether its script counts in integer units of a fraction of a permit ({@code token-bucket},
     * {@code leaky-bucket}), so that a rule's capacity in units must stay exact as a Lua double.
     */
    public boolean countsInUnits() {
        return traits.contains(Trait.UNITS);
    }

    /**
     * Whether its state is a time up to {@code burst} emission intervals ({@code window / limit})
     * ahead ({@code gcra}), so that {@code burst × interval} must stay exact as a Lua double.
     */
    public boolean spacesByInterval() {
        return traits.contains(Trait.INTERVAL);
    }

    /**
     * Whether an admission holds a lease until {@link RateLimiter#release(Decision)} gives it back
     * ({@code concurrency}): it limits requests in flight, not requests per window, and
     * {@code window} is the lease timeout.
     */
    public boolean holdsLeases() {
        return traits.contains(Trait.LEASES);
    }

    /** Whether {@link Transport#TRANSACTION} (MULTI/EXEC) can decide it. */
    public boolean runsAsTransaction() {
        return traits.contains(Trait.TRANSACTION);
    }

    /**
     * What the algorithm's script takes for one rule after its permits, as the script's header
     * lays them out: computed once per rule, never per request. Public for tools that run the
     * scripts bare with exactly what a limiter sends (the benchmarks, the frozen-clock tests).
     */
    public List<String> scriptArguments(Rule rule) {
        return scriptArguments.apply(rule);
    }

    /**
     * Finds an algorithm by its configuration name, such as {@code token-bucket}; case and surrounding blanks
     * are ignored.
     *
     * @throws IllegalArgumentException if no algorithm has that name; the message lists the names
     */
    public static Algorithm fromConfigName(String name) {
        return ConfigNames.find("algorithm", values(), Algorithm::configName, name);
    }

    static String names() {
        return ConfigNames.list(values(), Algorithm::configName);
    }

    /** The names of the algorithms that pass the test, as prose for messages: {@code a, b and c}. */
    public static String namesWhere(Predicate<Algorithm> test) {
        List<String> names = new ArrayList<>();
        for (Algorithm algorithm : values()) {
            if (test.test(algorithm)) {
                names.add(algorithm.configName);
            }
        }
        int last = names.size() - 1;
        return last <= 0 ? String.join("", names) : String.join(", ", names.subList(0, last)) + " and " + names.get(last);
    }

    @Override
    public String toString() {
        return configName;
    }

    /**
     * Checks that a rule's numbers stay exact in its script, whose Lua numbers are doubles (integers
     * exact up to 2^53): the buckets keep tokens as integers in units of 1/scale of a permit, so that
     * a retry at retry-after is admitted exactly, and their capacity in units must stay well below;
     * gcra keeps its time up to burst × interval ahead of now, which must stay below 2^51 microseconds.
     *
     * @throws IllegalArgumentException naming {@code burst} when they would not
     */
    void checkExact(long limit, Duration window, long burst) {
        long windowMicros = window.toNanos() / 1000;
        if (countsInUnits() && BigInteger.valueOf(burst).multiply(BigInteger.valueOf(BucketUnits.of(limit,
                windowMicros).scale)).compareTo(BigInteger.valueOf((1L << 53) / 4)) > 0) {
            throw new BadArgument("burst", "burst " + burst + " with limit " + limit + " per "
                    + Durations.format(window) + " is too fine-grained to count exactly; use a round window "
                    + "such as 1s or 1m, or a smaller burst");
        }
        if (spacesByInterval() && BigInteger.valueOf(burst).multiply(BigInteger.valueOf(interval(limit,
                windowMicros))).compareTo(BigInteger.valueOf(1L << 51)) > 0) {
            throw new BadArgument("burst", "burst " + burst + " with limit " + limit + " per "
                    + Durations.format(window) + " spans more than 2^51 microseconds (about 71 years) of "
                    + "emission intervals, past what gcra counts exactly; use a smaller burst");
        }
    }

    /** gcra's emission interval in microseconds, rounded up: never faster than the rate. */
    private static long interval(long limit, long windowMicros) {
        return (windowMicros + limit - 1) / limit;
    }

    /** fixed-window, sliding-log, sliding-window: limit, window in microseconds; concurrency: limit, lease timeout. */
    private static List<String> limitAndWindow(Rule rule) {
        return Immutable.listOf(Long.toString(rule.limit()), Long.toString(rule.windowMicros()));
    }

    /** token-bucket, leaky-bucket: capacity in units, units per permit, units per microsecond. */
    private static List<String> bucketUnits(Rule rule) {
        BucketUnits units = BucketUnits.of(rule.limit(), rule.windowMicros());
        return Immutable.listOf(Long.toString(rule.burst() * units.scale), Long.toString(units.scale),
                Long.toString(units.rate));
    }

    /** gcra: emission interval in microseconds, burst. */
    private static List<String> emissionInterval(Rule rule) {
        return Immutable.listOf(Long.toString(interval(rule.limit(), rule.windowMicros())), Long.toString(rule.burst()));
    }
}
