package dev.ratelimit;

import java.util.Locale;

/**
 * The step kinds and faults of {@link LeasesModel} that can be switched, each read from a system
 * property {@code leases.model.<name>} ({@code true}/{@code false}) and otherwise at its default for
 * the algorithm. A switch is off by default only where the model finds a known lease bug of issue 37
 * with it on (QuotaLeasesModelTest's class comment names each); turn it on once the bug is fixed.
 *
 * @param resets client resets ({@code RateLimiter.reset}) on any node
 * @param flushes the test kit's reset ({@code TestOnlyRedis.reset}): every key gone, every node told at
 *     once, also while a call is in flight (another thread's test resetting)
 * @param lateGiveBacks a lease's unused rest goes back whenever its node next calls Redis, as in
 *     production; off, the model has the node give back its leases at each lease's end, so no rest
 *     lands after its lease's life
 * @param heldGiveBacks give-backs delayed (their calls time out and run later) and reordered
 * @param inFlight another node (or the same one) acting while a call is in flight, before its script
 *     runs or after it ran and before its reply arrives: a request, a give-back, and with {@code resets} a reset
 * @param inFlightOverrides also, while a call is in flight, an override written and applied on a node by its
 *     next decision (the same node too: another thread)
 * @param denyCache nodes keep their local deny cache (the default outside the model), and a denial it
 *     answers is checked against Redis
 * @param overrides live limit overrides, up and down (never for token-bucket, which refuses them)
 * @param doubleGiveBack the negative test's fault: one give-back applied twice, armed at the first
 *     give-back after {@code doubleGiveBackAfter} steps
 */
record ModelSwitches(boolean resets, boolean flushes, boolean lateGiveBacks, boolean heldGiveBacks, boolean inFlight,
        boolean inFlightOverrides, boolean denyCache, boolean overrides, boolean doubleGiveBack, int doubleGiveBackAfter) {

    /**
     * The switches from system properties, at the algorithm's defaults where none is set; with
     * {@code -Dleases.model.all=true}, every switch that applies is on unless set off.
     */
    static ModelSwitches fromProperties(Algorithm algorithm) {
        ModelSwitches defaults = flag("all", false) ? all(algorithm) : defaults(algorithm);
        return new ModelSwitches(
                flag("resets", defaults.resets),
                flag("flushes", defaults.flushes),
                flag("lateGiveBacks", defaults.lateGiveBacks),
                flag("heldGiveBacks", defaults.heldGiveBacks),
                flag("inFlight", defaults.inFlight),
                flag("inFlightOverrides", defaults.inFlightOverrides),
                flag("denyCache", defaults.denyCache),
                flag("overrides", defaults.overrides),
                false, 0);
    }

    /**
     * On: what the model finds no violation with on today's code, which is everything but token-bucket's
     * late and held give-backs: a rest sent after part of its lease drained still gives all of it back
     * (a known bug, pinned in QuotaLeasesKnownBugsTest).
     */
    static ModelSwitches defaults(Algorithm algorithm) {
        boolean tokenBucket = algorithm == Algorithm.TOKEN_BUCKET;
        return new ModelSwitches(true, true, true, true, true, !tokenBucket, true, !tokenBucket, false, 0);
    }

    /** Every switch on that applies to the algorithm: what the model should pass once issue 37 is fixed. */
    static ModelSwitches all(Algorithm algorithm) {
        boolean overrides = algorithm != Algorithm.TOKEN_BUCKET;
        return new ModelSwitches(true, true, true, true, true, overrides, true, overrides, false, 0);
    }

    ModelSwitches withDoubleGiveBack(int afterSteps) {
        return new ModelSwitches(resets, flushes, lateGiveBacks, heldGiveBacks, inFlight, inFlightOverrides, denyCache, overrides,
                true, afterSteps);
    }

    ModelSwitches with(String name, boolean on) {
        return new ModelSwitches(name.equals("resets") ? on : resets, name.equals("flushes") ? on : flushes,
                name.equals("lateGiveBacks") ? on : lateGiveBacks,
                name.equals("heldGiveBacks") ? on : heldGiveBacks, name.equals("inFlight") ? on : inFlight,
                name.equals("inFlightOverrides") ? on : inFlightOverrides, name.equals("denyCache") ? on : denyCache, name.equals("overrides") ? on : overrides, doubleGiveBack,
                doubleGiveBackAfter);
    }

    private static boolean flag(String name, boolean fallback) {
        String value = System.getProperty("leases.model." + name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        if (!value.trim().toLowerCase(Locale.ROOT).matches("true|false")) {
            throw new IllegalArgumentException("system property 'leases.model." + name + "' must be true or false, but was '"
                    + value + "'");
        }
        return Boolean.parseBoolean(value.trim());
    }

    /** As {@code -D} arguments, for a failure message that tells how to run it again. */
    String asProperties() {
        return "-Dleases.model.resets=" + resets + " -Dleases.model.flushes=" + flushes + " -Dleases.model.lateGiveBacks=" + lateGiveBacks
                + " -Dleases.model.heldGiveBacks=" + heldGiveBacks + " -Dleases.model.inFlight=" + inFlight
                + " -Dleases.model.inFlightOverrides=" + inFlightOverrides
                + " -Dleases.model.denyCache=" + denyCache + " -Dleases.model.overrides=" + overrides
                + (doubleGiveBack ? " (and one give-back applied twice after step " + doubleGiveBackAfter + ")" : "");
    }
}
