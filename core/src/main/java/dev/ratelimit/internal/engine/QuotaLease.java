package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One client's quota lease on this node ({@link QuotaLeases}): what it may still admit, what it
 * admitted, and what it says to ask for next.
 *
 * <p>How much to ask: nothing the first time a client is seen, and nothing until it has come back
 * twice in a row at a pace of at least {@link #MIN_EXPECTED} requests in a lease's life (measured
 * from its previous round trip). Most clients of a busy site come back seldom: a lease they would
 * not use costs a give-back, and a call that asks for a lease cannot travel joined with others
 * (coalescing), so lending to them costs Redis more than it saves. One quick return proves little
 * (among 10,000 clients chosen at random, some come back at once by chance); two in a row do. A client that comes often enough asks twice what its last
 * lease held if it used all of it, else what it used; never more than its pace predicts for a
 * lease's life, and at most {@link #MAX_ASK}. Redis grants at most a quarter of what is left, so
 * near the limit there is none. Thread-safe.
 */
final class QuotaLease implements Receipt.Issuer {
    /** The most permits asked for one client at once. */
    static final long MAX_ASK = 1024;
    /**
     * The fewest admissions a client must be expected to make in one lease's life before it is
     * lent anything: below that a lease mostly goes back unused.
     */
    static final long MIN_EXPECTED = 4;

    private final QuotaLeases owner;
    final String key;
    private final QuotaGrant grant;
    private final List<String> keys;
    /** What each admission's receipt is made from ({@link Receipt#withPermits}): the keys copied once, not per admission. */
    private final Receipt receipts;
    private final long granted;
    final long expiresAt;
    /** When the round trip that took the lease went out. */
    private final long sentAt;
    /** Whether the client came back quickly before that round trip too ({@link #settleForNext}). */
    private final boolean paced;
    /** Whether the client came back quickly after it: the next lease's {@link #paced}. */
    volatile boolean quickReturn;
    /** Redis's answer to the admission that took the lease: the rule in force, what was left, the reset. */
    private final Decision atGrant;
    private long left;
    private long used;
    private boolean settled;
    /**
     * For gcra and token-bucket, when the client's state would be clear again had each admission
     * from the lease been decided by Redis at its instant: each moves it on by its permits'
     * interval, from now if it was already past. What their {@code Reset} says.
     */
    private long clearAt;
    /** How far one permit moves {@link #clearAt} on, under the rule in force at the grant; 0 unless gcra or token-bucket. */
    private final long clearingPerPermit;

    QuotaLease(QuotaLeases owner, String key, Decision admission, QuotaGrant grant, long expiresAt, long sentAt,
            boolean paced) {
        this.owner = owner;
        this.key = key;
        this.paced = paced;
        this.grant = grant;
        this.keys = grant == null ? null : grant.keys();
        this.receipts = keys == null ? null : new Receipt(this, keys, new long[] {1}, new long[] {0});
        this.granted = grant == null ? 0 : grant.permits();
        this.left = granted;
        this.expiresAt = expiresAt;
        this.sentAt = sentAt;
        this.atGrant = admission;
        this.clearAt = sentAt + admission.resetAfter().toNanos();
        this.clearingPerPermit = owner.refilling ? perPermitNanos(admission.rule()) : 0;
        if (granted > 0) {
            owner.lent(this, true);
        }
    }

    synchronized Decision admit(long permits, long now) {
        if (settled || now - expiresAt >= 0 || left < permits) {
            return null;
        }
        left -= permits;
        used += permits;
        Rule inForce = atGrant.rule();
        if (clearingPerPermit > 0) {
            clearAt = Math.max(clearAt, now) + permits * clearingPerPermit;
        }
        Duration reset = owner.sliding ? inForce.window() : Duration.ofNanos(Math.max(0, clearAt - now));
        return DecisionAccess.get().admission(inForce, atGrant.remaining() - used, Duration.ZERO, reset,
                receipts.withPermits(permits));
    }

    /**
     * Ends the lease and says what to ask for next: nothing unless the client's pace since the
     * round trip that took this lease (that admission and the lease's since) predicts at least
     * {@link #MIN_EXPECTED} admissions in a lease's life, and it did so the time before too;
     * else twice what it held if all of it was used, or what was used, and never more than the
     * pace predicts.
     */
    synchronized long settleForNext(long now) {
        if (settled) {
            // Another request of the client is asking: one ask at a time.
            return 0;
        }
        settle(now);
        // Over the whole time since: a lease used to its end took a lease's life, and a client
        // back after a long pause has a pace near nothing.
        long since = Math.max(1, now - sentAt);
        long expected = (used + 1) * owner.lifetimeNanos / since;
        quickReturn = expected >= MIN_EXPECTED;
        if (!quickReturn || !paced) {
            return 0;
        }
        long grown = used >= granted ? Math.max(1, 2 * granted) : used;
        return Math.min(MAX_ASK, Math.min(expected, grown));
    }

    /** Ends the lease: what is left goes back with a later round trip. */
    synchronized void settle(long now) {
        if (settled) {
            return;
        }
        settled = true;
        if (granted > 0) {
            owner.lent(this, false);
        }
        if (left > 0) {
            owner.giveBackLater(key, grant.ticket(left), expiresAt);
            left = 0;
        }
    }

    synchronized void drop() {
        if (!settled && granted > 0) {
            owner.lent(this, false);
        }
        settled = true;
        left = 0;
    }

    /** Whether the lease is live with permits lent: a call that asked nothing must not replace it. */
    synchronized boolean holdsPermits() {
        return !settled && left > 0;
    }

    /** A refund of an admission made from this lease: back into the lease while it lives. */
    @Override
    public synchronized boolean giveBack(Receipt receipt) {
        long permits = receipt.permits(0);
        if (settled || owner.now() - expiresAt >= 0 || permits > used) {
            return false;
        }
        left += permits;
        used -= permits;
        return true;
    }

    /**
     * How much one permit moves a gcra or token-bucket state's clearing on: the window over the
     * limit, for gcra rounded up to a whole microsecond as its script rounds its interval.
     */
    private static long perPermitNanos(Rule rule) {
        long windowMicros = TimeUnit.NANOSECONDS.toMicros(rule.window().toNanos());
        return TimeUnit.MICROSECONDS.toNanos((windowMicros + rule.limit() - 1) / rule.limit());
    }
}
