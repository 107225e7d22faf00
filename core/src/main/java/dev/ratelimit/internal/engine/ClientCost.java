package dev.ratelimit.internal.engine;

/**
 * A client as the caller named it, and the permits it asked for (0 for each rule's cost): what a
 * remembered denial answers ({@link RememberedDenials}), and so its key in the deny cache. A
 * {@link Call} is one, so a lookup builds no key. Immutable.
 */
class ClientCost {
    final String key;
    final long callerPermits;

    ClientCost(String key, long callerPermits) {
        this.key = key;
        this.callerPermits = callerPermits;
    }

    @Override
    public final boolean equals(Object other) {
        return other instanceof ClientCost && ((ClientCost) other).callerPermits == callerPermits
                && ((ClientCost) other).key.equals(key);
    }

    @Override
    public final int hashCode() {
        return 31 * key.hashCode() + Long.hashCode(callerPermits);
    }
}
