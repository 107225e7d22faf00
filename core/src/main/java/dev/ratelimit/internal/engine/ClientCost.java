package dev.ratelimit.internal.engine;

/**
 * A client's bucket as the caller named it, and the permits it asked for (0 for each rule's cost):
 * what a remembered denial answers ({@link RememberedDenials}), and so its key in the deny cache. The
 * client is one key ({@code tryAcquire}) or the list of one key per rule ({@code tryAcquireEach}),
 * never the text they join to: keys that join alike ({@code "a + b"} and {@code "c"}, {@code "a"} and
 * {@code "b + c"}) are other buckets. A {@link Call} is one, so a lookup builds no key. Immutable.
 */
class ClientCost {
    /** A client key (a String), or an unmodifiable list of one client key per rule. */
    final Object client;
    final long callerPermits;

    ClientCost(Object client, long callerPermits) {
        this.client = client;
        this.callerPermits = callerPermits;
    }

    @Override
    public final boolean equals(Object other) {
        return other instanceof ClientCost && ((ClientCost) other).callerPermits == callerPermits
                && ((ClientCost) other).client.equals(client);
    }

    @Override
    public final int hashCode() {
        return 31 * client.hashCode() + Long.hashCode(callerPermits);
    }
}
