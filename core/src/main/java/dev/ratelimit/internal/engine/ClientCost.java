package dev.ratelimit.internal.engine;

import dev.ratelimit.internal.support.Immutable;
import java.util.List;

/**
 * A client's bucket as the caller named it, and the permits it asked for (0 for each rule's cost):
 * what a remembered denial answers ({@link RememberedDenials}), and so its key in the deny cache. The
 * client is one key ({@code tryAcquire}) or the list of one key per rule ({@code tryAcquireEach}),
 * never the text they join to: keys that join alike ({@code "a + b"} and {@code "c"}, {@code "a"} and
 * {@code "b + c"}) are other buckets. A {@link Call} is one, so a lookup builds no key. Immutable.
 */
class ClientCost {
    /** A client key (a String), or the list of one client key per rule. */
    final Object client;
    final long callerPermits;

    ClientCost(Object client, long callerPermits) {
        this.client = client;
        this.callerPermits = callerPermits;
    }

    /**
     * This client and cost as the deny cache keeps them: a list of keys copied, so that no caller's list
     * changes a key the cache holds. Only a denial pays for it, not every decision.
     */
    ClientCost kept() {
        return new ClientCost(client instanceof List ? Immutable.copyOf((List<?>) client) : client, callerPermits);
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
