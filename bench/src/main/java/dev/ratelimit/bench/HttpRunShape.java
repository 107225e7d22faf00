package dev.ratelimit.bench;

import java.time.Duration;
import java.util.List;

/**
 * How long an HTTP run loads each row: the warm-up round, each row's own warm-up and measured part
 * per round, the rounds, and whether every row is profiled after them; and whether it is a smoke
 * run, whose child JVMs then run light ({@link #SMOKE_JVM_OPTIONS}) and whose rows share one
 * generator process ({@link GeneratorJvm.Shared}).
 */
record HttpRunShape(Duration firstWarmUp, Duration warmUp, Duration measure, int rounds, boolean profile,
        boolean smoke) {
    /** System properties that override the full run's shape (see {@link #fromSystemProperties}). */
    static final String FIRST_WARM_UP_PROPERTY = "bench.http.firstWarmUp";
    static final String WARM_UP_PROPERTY = "bench.http.warmUp";
    static final String MEASURE_PROPERTY = "bench.http.measure";
    static final String ROUNDS_PROPERTY = "bench.http.rounds";
    /** Each row's load in the warm-up round, before anything is measured. */
    static final Duration FIRST_WARM_UP = Duration.ofSeconds(5);
    /** Each row's own warm-up in every round, right before its measured part. */
    static final Duration WARM_UP = Duration.ofSeconds(3);
    static final Duration MEASURE = Duration.ofSeconds(5);
    static final int ROUNDS = 3;
    /**
     * A smoke run's child JVMs (the server, the generator): C1 and the serial collector, as the root
     * pom's {@code argLine} runs the build's test JVMs (30–50 % less CPU there). The figures of a smoke
     * run mean nothing; a full run's JVMs keep their options.
     */
    static final List<String> SMOKE_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    /** A smoke run's measured part per row: enough for some hundreds of requests. */
    static final Duration SMOKE_MEASURE = Duration.ofMillis(100);

    HttpRunShape {
        if (rounds < 1 || measure.isZero() || measure.isNegative() || warmUp.isNegative()
                || firstWarmUp.isNegative()) {
            throw new IllegalArgumentException("an HTTP run needs a measured part and at least one round, but was "
                    + "first warm-up " + firstWarmUp + ", warm-up " + warmUp + ", measure " + measure + ", rounds "
                    + rounds);
        }
    }

    /**
     * A full run, or a smoke run (one round, no warm-up, {@link #SMOKE_MEASURE} per row) that only proves it works.
     * The system properties {@value #FIRST_WARM_UP_PROPERTY}, {@value #WARM_UP_PROPERTY} and
     * {@value #MEASURE_PROPERTY} (seconds, or ISO-8601 such as {@code PT8S}) and
     * {@value #ROUNDS_PROPERTY} override the full run's shape.
     */
    static HttpRunShape fromSystemProperties(boolean smoke) {
        if (smoke) {
            return new HttpRunShape(Duration.ZERO, Duration.ZERO, SMOKE_MEASURE, 1, false, true);
        }
        String rounds = System.getProperty(ROUNDS_PROPERTY);
        return new HttpRunShape(duration(FIRST_WARM_UP_PROPERTY, FIRST_WARM_UP), duration(WARM_UP_PROPERTY, WARM_UP),
                duration(MEASURE_PROPERTY, MEASURE), blank(rounds) ? ROUNDS : Integer.parseInt(rounds.trim()), true,
                false);
    }

    /** Whether a property is unset: Maven forwards the ones it was not given as empty. */
    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static Duration duration(String property, Duration otherwise) {
        String value = System.getProperty(property);
        if (blank(value)) {
            return otherwise;
        }
        String trimmed = value.trim();
        return trimmed.startsWith("P") ? Duration.parse(trimmed)
                : Duration.ofMillis(Math.round(Double.parseDouble(trimmed) * 1000));
    }
}
