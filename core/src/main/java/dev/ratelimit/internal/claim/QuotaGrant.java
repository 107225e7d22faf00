package dev.ratelimit.internal.claim;

import java.util.List;

/**
 * A quota lease Redis granted with an admission: permits more for this node, taken in Redis at
 * once, which the node may admit from without asking until the lease ends; what it does not use
 * goes back with {@link #ticket(long)}. Immutable.
 */
public final class QuotaGrant {
    private final long lifetimeMicros;
    private final Receipt ticket;

    /** @param lifetimeMicros how long after the call was sent the node may admit from the lease */
    public QuotaGrant(long lifetimeMicros, Receipt ticket) {
        this.lifetimeMicros = lifetimeMicros;
        this.ticket = ticket;
    }

    /** How many permits were leased. */
    public long permits() {
        return ticket.permits(0);
    }

    public List<String> keys() {
        return ticket.keys();
    }

    public long lifetimeMicros() {
        return lifetimeMicros;
    }

    /** Gives back part of the lease: {@code unused} permits under the same stamp. */
    public Receipt ticket(long unused) {
        return ticket.withPermits(unused);
    }

    @Override
    public String toString() {
        return permits() + " permits for " + lifetimeMicros + "us";
    }
}
