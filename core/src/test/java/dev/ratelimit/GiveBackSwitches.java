package dev.ratelimit;

import dev.ratelimit.internal.rules.ChargeRules;
import dev.ratelimit.internal.rules.DelayRules;
import java.util.List;
import java.util.Locale;

/**
 * The step kinds and faults of {@link GiveBacksModel} that can be switched, each read from a system
 * property {@code givebacks.model.<name>} ({@code true}/{@code false}) and otherwise at its default
 * for the algorithm: on wherever the algorithm takes it (delays where DelayRules allows them, charges
 * where ChargeRules does, overrides but for token-bucket and leaky-bucket, which refuse them, and
 * sliding-window, which the model holds to plain requests, refunds, resets and restarts). A switch is
 * off by default only where the model finds a known bug with it on (GiveBacksModelTest's class
 * comment names each); turn it on once the bug is fixed.
 *
 * @param refunds refunds ({@code countStatus}) of held admissions
 * @param delays delayed requests ({@code tryAcquire(key, maxDelay)}), refunded later too
 * @param charges after-charges above and below the admission's cost
 * @param overrides live limit overrides up and down
 * @param resets client resets ({@code reset}, {@code resetEach})
 * @param restarts Redis restarts that lose every key
 * @param flushes the test kit's reset ({@code TestOnlyRedis.reset}): every key gone, every node told at once
 * @param failures Redis failing calls, refusing them or losing their replies
 * @param heldGiveBacks give-backs held (their calls time out) and landing later, in any order
 * @param staleGiveBacks give-backs (and charges below the cost) of admissions taken before the client's
 *     last reset or restart; off, the model settles only admissions of the client's current epoch
 * @param sameMicrosecond a reset or a restart and the client's next writes in the same microsecond; off, a
 *     microsecond passes after each
 * @param keyTtls every client key holds a TTL after every step
 * @param denyCache nodes keep their local deny cache; null: drawn per seed
 * @param faultAt the negative tests' fault ({@code fault}) is armed at this step; -1: none
 * @param fault {@code replay} (one give-back applied twice), {@code life} (a give-back into the life the
 *     state has now) or {@code trims} (ZREMRANGEBYSCORE ignored)
 */
record GiveBackSwitches(boolean refunds, boolean delays, boolean charges, boolean overrides, boolean resets, boolean restarts,
        boolean flushes, boolean failures, boolean heldGiveBacks, boolean staleGiveBacks, boolean sameMicrosecond, boolean keyTtls, Boolean denyCache, int faultAt,
        String fault) {

    private static final String PREFIX = "givebacks.model.";

    /**
     * What the model finds no violation with on today's code: every switch that applies but {@code
     * sameMicrosecond} (GiveBacksModelTest's class comment, GiveBacksKnownBugsTest): a state's life is
     * named by the microsecond it began, and Redis never answers a reset and the next write in one
     * microsecond. The other bugs the model found ({@code staleGiveBacks}, leaky-bucket's {@code refunds},
     * sliding-log's {@code keyTtls}) are fixed, and their scenarios in GiveBacksKnownBugsTest now pass.
     */
    static GiveBackSwitches defaults(Algorithm algorithm) {
        return all(algorithm).with("sameMicrosecond", false);
    }

    /** Every switch on that applies to the algorithm. */
    static GiveBackSwitches all(Algorithm algorithm) {
        Rule rule = Rule.of(algorithm, 10, GiveBacksModel.WINDOW);
        boolean delays = DelayRules.refusal(List.of(rule), Transport.LUA, false) == null;
        boolean charges = ChargeRules.conflict(List.of(rule), false) == null;
        boolean overrides = algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_LOG
                || algorithm == Algorithm.GCRA;
        return new GiveBackSwitches(true, delays, charges, overrides, true, true, true, true, true, true, true, true, null, -1,
                null);
    }

    /**
     * The switches from system properties, at the algorithm's defaults where none is set; with
     * {@code -Dgivebacks.model.all=true}, every switch that applies is on unless set off.
     */
    static GiveBackSwitches fromProperties(Algorithm algorithm) {
        GiveBackSwitches base = flag("all", false) ? all(algorithm) : defaults(algorithm);
        GiveBackSwitches any = all(algorithm);
        String cache = System.getProperty(PREFIX + "denyCache");
        return new GiveBackSwitches(
                flag("refunds", base.refunds),
                any.delays && flag("delays", base.delays),
                any.charges && flag("charges", base.charges),
                any.overrides && flag("overrides", base.overrides),
                flag("resets", base.resets),
                flag("restarts", base.restarts),
                flag("flushes", base.flushes),
                flag("failures", base.failures),
                flag("heldGiveBacks", base.heldGiveBacks),
                flag("staleGiveBacks", base.staleGiveBacks),
                flag("sameMicrosecond", base.sameMicrosecond),
                flag("keyTtls", base.keyTtls),
                cache == null || cache.isBlank() ? null : flag("denyCache", false),
                -1, null);
    }

    GiveBackSwitches withFault(String kind, int atStep) {
        return new GiveBackSwitches(refunds, delays, charges, overrides, resets, restarts, flushes, failures, heldGiveBacks,
                staleGiveBacks, sameMicrosecond, keyTtls, denyCache, atStep, kind);
    }

    GiveBackSwitches withDenyCache(Boolean on) {
        return new GiveBackSwitches(refunds, delays, charges, overrides, resets, restarts, flushes, failures, heldGiveBacks,
                staleGiveBacks, sameMicrosecond, keyTtls, on, faultAt, fault);
    }

    /** Whether the named switch is on. */
    boolean on(String name) {
        return with(name, true).equals(this);
    }

    GiveBackSwitches with(String name, boolean on) {
        return new GiveBackSwitches(name.equals("refunds") ? on : refunds, name.equals("delays") ? on : delays, name.equals("charges") ? on : charges,
                name.equals("overrides") ? on : overrides, name.equals("resets") ? on : resets,
                name.equals("restarts") ? on : restarts, name.equals("flushes") ? on : flushes,
                name.equals("failures") ? on : failures,
                name.equals("heldGiveBacks") ? on : heldGiveBacks, name.equals("staleGiveBacks") ? on : staleGiveBacks,
                name.equals("sameMicrosecond") ? on : sameMicrosecond, name.equals("keyTtls") ? on : keyTtls, denyCache,
                faultAt, fault);
    }

    private static boolean flag(String name, boolean fallback) {
        String value = System.getProperty(PREFIX + name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        if (!value.trim().toLowerCase(Locale.ROOT).matches("true|false")) {
            throw new IllegalArgumentException("system property '" + PREFIX + name + "' must be true or false, but was '"
                    + value + "'");
        }
        return Boolean.parseBoolean(value.trim());
    }

    /** As {@code -D} arguments, for a failure message that tells how to run it again. */
    String asProperties() {
        return "-D" + PREFIX + "refunds=" + refunds + " -D" + PREFIX + "delays=" + delays + " -D" + PREFIX + "charges=" + charges + " -D" + PREFIX + "overrides="
                + overrides + " -D" + PREFIX + "resets=" + resets + " -D" + PREFIX + "restarts=" + restarts + " -D" + PREFIX
                + "flushes=" + flushes + " -D" + PREFIX + "failures=" + failures + " -D" + PREFIX + "heldGiveBacks=" + heldGiveBacks + " -D" + PREFIX
                + "staleGiveBacks=" + staleGiveBacks + " -D" + PREFIX + "sameMicrosecond=" + sameMicrosecond + " -D" + PREFIX
                + "keyTtls=" + keyTtls + (denyCache == null ? "" : " -D" + PREFIX + "denyCache=" + denyCache)
                + (fault == null ? "" : " (and the fault '" + fault + "' armed at step " + faultAt + ")");
    }
}
