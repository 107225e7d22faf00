package dev.ratelimit.internal.scripts;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.ConcurrencyLease;
import dev.ratelimit.internal.claim.Receipt;
import java.time.Duration;

/**
 * The one door into what a {@link Decision} holds: the {@link Receipt} an admission's permits
 * are given back with, the {@link ConcurrencyLease} an admission of {@code concurrency} is released with, and
 * whether a denial put its client in the penalty box. The evaluators make decisions holding receipts
 * and penalties, the engine attaches leases and reads them all back, each through {@link #get()}.
 *
 * <p>Why a door: {@code Decision} is public API and must not offer these to applications, yet
 * they are made and read in other packages. {@code RateLimiterBuilder}, through which every limiter
 * is built and which shares {@code Decision}'s package, installs it; {@code Decision} itself names
 * no type above {@code claim}, so the API's values stay at the bottom of the package graph. Not for
 * applications.
 */
public abstract class DecisionAccess {
    /** The class whose initialiser installs the door; named, not linked, so no circle forms. */
    private static final String INSTALLER = "dev.ratelimit.RateLimiterBuilder";

    private static volatile DecisionAccess installed;

    /** Called once, by the installer's static initialiser. */
    public static void install(DecisionAccess door) {
        installed = door;
    }

    /** The door the API package installed. */
    public static DecisionAccess get() {
        DecisionAccess door = installed;
        if (door == null) {
            try {
                // Initialising the class runs its static block, which installs the door.
                Class.forName(INSTALLER, true, DecisionAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(INSTALLER + " is part of this jar", e);
            }
            door = installed;
        }
        return door;
    }

    /**
     * An admission, as {@link Decision#of} or, with a delay above zero, {@link Decision#delayed}
     * makes it, carrying what it took: null for a peek.
     */
    public abstract Decision admission(Rule rule, long remaining, Duration delay, Duration resetAfter, Receipt receipt);

    /**
     * A denial by the penalty box: {@code opens} for the one that put the client in it, else one
     * while it is there.
     */
    public abstract Decision penaltyDenial(Rule rule, long remaining, Duration retryAfter, Duration resetAfter,
            boolean opens);

    /** Whether this denial put its client in the penalty box. */
    public abstract boolean opensPenalty(Decision decision);

    /** What the decision took, or null: a denial, a peek, or a degraded answer that took nothing. */
    public abstract Receipt receipt(Decision decision);

    /** The same admission, holding the lease Redis recorded for it. */
    public abstract Decision withLease(Decision decision, ConcurrencyLease lease);

    /** The lease the decision holds, or null. */
    public abstract ConcurrencyLease lease(Decision decision);
}
