package dev.ratelimit.internal.scripts;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.claim.Lease;
import dev.ratelimit.internal.claim.Receipt;

/**
 * The one door into what a {@link Decision} holds: the {@link Receipt} an admission's permits
 * are given back with, and the {@link Lease} an admission of {@code concurrency} is released with.
 * The evaluators attach receipts, the engine attaches leases and reads both back.
 *
 * <p>Why a bridge: {@code Decision} is public API and must not offer these to applications, yet
 * they are made and read in other packages. {@code RateLimiterBuilder}, through which every limiter
 * is built and which shares {@code Decision}'s package, installs it; {@code Decision} itself names
 * no type above {@code claim}, so the API's values stay at the bottom of the package graph. Not for
 * applications.
 */
public final class DecisionAccess {
    /** What the API package offers its own library. */
    public interface Bridge {
        Decision withReceipt(Decision decision, Receipt receipt);

        Receipt receipt(Decision decision);

        Decision withLease(Decision decision, Lease lease);

        Lease lease(Decision decision);

        Decision penalized(Decision decision, boolean opens);

        /** Whether this denial put the client in the penalty box (not one while it was there). */
        boolean opensPenalty(Decision decision);
    }

    /** The class whose initialiser installs the bridge; named, not linked, so no circle forms. */
    private static final String INSTALLER = "dev.ratelimit.RateLimiterBuilder";

    private static volatile Bridge bridge;

    private DecisionAccess() {
    }

    /** Called once, by the installer's static initialiser. */
    public static void install(Bridge installed) {
        bridge = installed;
    }

    /** The same decision, carrying what it took. */
    public static Decision withReceipt(Decision decision, Receipt receipt) {
        return bridge().withReceipt(decision, receipt);
    }

    /** What the decision took, or null: a denial, a peek, or a degraded answer that took nothing. */
    public static Receipt receipt(Decision decision) {
        return bridge().receipt(decision);
    }

    /** The same admission, holding the lease Redis recorded for it. */
    public static Decision withLease(Decision decision, Lease lease) {
        return bridge().withLease(decision, lease);
    }

    /**
     * The same denial, given by the penalty box: {@code opens} for the one that put the client in
     * it, else one while it is there.
     */
    public static Decision penalized(Decision decision, boolean opens) {
        return bridge().penalized(decision, opens);
    }

    /** Whether this denial put its client in the penalty box. */
    public static boolean opensPenalty(Decision decision) {
        return bridge().opensPenalty(decision);
    }

    /** The lease the decision holds, or null. */
    public static Lease lease(Decision decision) {
        return bridge().lease(decision);
    }

    private static Bridge bridge() {
        Bridge current = bridge;
        if (current == null) {
            try {
                // Initialising the class runs its static block, which installs the bridge.
                Class.forName(INSTALLER, true, DecisionAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(INSTALLER + " is part of this jar", e);
            }
            current = bridge;
        }
        return current;
    }
}
