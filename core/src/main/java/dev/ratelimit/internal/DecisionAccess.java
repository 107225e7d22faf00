package dev.ratelimit.internal;

import dev.ratelimit.Decision;

/**
 * Lets the evaluators attach a {@link Receipt} to a {@link Decision}, and the limiter read it,
 * without the public API naming an internal type ({@link StoreAccess} does the same for stores).
 * {@code Decision} installs the bridge when its class is initialised. Not for applications.
 */
public final class DecisionAccess {
    /** What {@code Decision} offers its own library. */
    public interface Bridge {
        Decision withReceipt(Decision decision, Receipt receipt);

        Receipt receipt(Decision decision);
    }

    private static volatile Bridge bridge;

    private DecisionAccess() {
    }

    /** Called once, by {@code Decision}'s static initialiser. */
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

    private static Bridge bridge() {
        Bridge current = bridge;
        if (current == null) {
            try {
                Class.forName(Decision.class.getName(), true, Decision.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Decision is part of this jar", e);
            }
            current = bridge;
        }
        return current;
    }
}
