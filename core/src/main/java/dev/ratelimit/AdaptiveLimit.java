package dev.ratelimit;

import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.Objects;

/**
 * Lowers a limiter's limits while the JVM is busy or slow, and raises them back when it is not.
 *
 * <p>The rule, recomputed at most once per second from the load source:
 * <ul>
 *   <li>CPU: at or below {@code cpuLow} (70 %) the factor is 1; at or above {@code cpuHigh} (95 %) it is
 *       the floor's; in between it falls linearly.</li>
 *   <li>Latency (only when a target is set): while the 90th percentile of the admitted requests'
 *       recent latencies is at or below the target the factor is 1; above it, target / p90 (twice
 *       the target halves the limit).</li>
 *   <li>The effective limit of each rule is {@code max(floor, round(limit × min(cpu factor, latency
 *       factor)))}, never above the configured limit and never below the floor.</li>
 * </ul>
 * Immutable; build with {@link #floor(double)}.
 */
public final class AdaptiveLimit {
    /** CPU load below which limits are not lowered. */
    public static final double CPU_LOW = 0.70;
    /** CPU load at and above which limits are at their floor. */
    public static final double CPU_HIGH = 0.95;

    /** Where the load comes from; injected in tests. */
    public interface LoadSource {
        /** The JVM's recent CPU load, 0 to 1, or a negative number when unknown. */
        double cpuLoad();
    }

    private final double floorFraction;
    private final Duration latencyTarget;
    private final LoadSource load;

    private AdaptiveLimit(double floorFraction, Duration latencyTarget, LoadSource load) {
        this.floorFraction = floorFraction;
        this.latencyTarget = latencyTarget;
        this.load = load;
    }

    /**
     * Adaptive limits that never go below {@code floorFraction} of the configured limit.
     *
     * @param floorFraction between 0.01 and 1, e.g. 0.25
     * @throws IllegalArgumentException otherwise
     */
    public static AdaptiveLimit floor(double floorFraction) {
        if (!(floorFraction >= 0.01 && floorFraction <= 1)) {
            throw new BadArgument("adaptive", "adaptive floor must be between 1% and 100% of the limit, but was "
                    + Math.round(floorFraction * 100) + "%");
        }
        return new AdaptiveLimit(floorFraction, null, AdaptiveLimit::processCpuLoad);
    }

    /** Also lowers limits while admitted requests are slower than this at the 90th percentile. */
    public AdaptiveLimit latencyTarget(Duration target) {
        if (target == null || target.isNegative() || target.isZero()) {
            throw new BadArgument("adaptiveLatency", "adaptive latency target must be positive, but was "
                    + (target == null ? "null" : Durations.format(target)));
        }
        return new AdaptiveLimit(floorFraction, target, load);
    }

    /** Uses another load source (tests). */
    public AdaptiveLimit loadSource(LoadSource source) {
        return new AdaptiveLimit(floorFraction, latencyTarget, Objects.requireNonNull(source, "source"));
    }

    public double floorFraction() {
        return floorFraction;
    }

    /** The latency target, or null when only CPU counts. */
    public Duration latencyTarget() {
        return latencyTarget;
    }

    LoadSource load() {
        return load;
    }

    /**
     * @throws IllegalArgumentException if a rule's algorithm does not {@link Algorithm#adapts() adapt}
     *     ({@code token-bucket} and {@code leaky-bucket}, whose stored tokens are counted in units of
     *     the configured rate and cannot be rescaled)
     */
    public static void checkApplies(java.util.List<Rule> rules) {
        for (Rule rule : rules) {
            if (!rule.algorithm().adapts()) {
                throw new BadArgument("adaptive", "adaptive limits apply to " + Algorithm.namesWhere(Algorithm::adapts)
                        + ", but rule " + rule.name() + " uses " + rule.algorithm()
                        + (rule.algorithm().holdsLeases() ? " (it limits requests in flight; lower its limit instead)"
                        : " (its stored tokens are counted in units of the configured rate)"));
            }
        }
    }

    /**
     * The factor the limits are multiplied by, from a CPU load and the admitted requests' p90
     * latency in microseconds (0 when none was recorded).
     */
    public double factor(double cpuLoad, long p90Micros) {
        double cpu = 1;
        if (cpuLoad >= CPU_HIGH) {
            cpu = floorFraction;
        } else if (cpuLoad > CPU_LOW) {
            cpu = 1 - (1 - floorFraction) * (cpuLoad - CPU_LOW) / (CPU_HIGH - CPU_LOW);
        }
        double latency = 1;
        if (latencyTarget != null && p90Micros > 0) {
            long targetMicros = latencyTarget.toNanos() / 1000;
            if (p90Micros > targetMicros) {
                latency = (double) targetMicros / p90Micros;
            }
        }
        return Math.max(floorFraction, Math.min(cpu, latency));
    }

    /** The effective limit of a rule for a factor: at least the floor, at most the configured limit. */
    public long effectiveLimit(long configured, double factor) {
        long floor = Math.max(1, Math.round(configured * floorFraction));
        return Math.max(floor, Math.min(configured, Math.round(configured * factor)));
    }

    private static double processCpuLoad() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuLoad();
        }
        double average = os.getSystemLoadAverage();
        return average < 0 ? -1 : average / os.getAvailableProcessors();
    }

    @Override
    public String toString() {
        return "adaptive, floor " + Math.round(floorFraction * 100) + "%"
                + (latencyTarget == null ? "" : ", latency target " + Durations.format(latencyTarget));
    }
}
