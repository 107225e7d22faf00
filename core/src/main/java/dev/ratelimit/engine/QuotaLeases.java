package dev.ratelimit.engine;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.claim.QuotaGrant;
import dev.ratelimit.claim.Receipt;
import dev.ratelimit.scripts.DecisionAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Quota leases of one limiter on this node: permits Redis handed out ahead of use, with an
 * admission, for a client that keeps coming back far from its limit. The node admits that client's
 * next requests from its lease without a round trip, until the lease is used up or ends; a denial
 * is never made here. Redis counted the leased permits when it granted them (see
 * limiter-driver.lua), so no node ever admits more than the limit; what a node did not use goes
 * back with its next round trip ({@code refund.lua}), so the client then gets its full limit.
 *
 * <p>How much to ask: nothing the first time a client is seen, and nothing until it has come back
 * twice in a row at a pace of at least {@link #MIN_EXPECTED} requests in a lease's life (measured
 * from its previous round trip). Most clients of a busy site come back seldom: a lease they would
 * not use costs a give-back, and a call that asks for a lease cannot travel joined with others
 * (coalescing), so lending to them costs Redis more than it saves. One quick return proves little
 * (among 10,000 clients chosen at random, some come back at once by chance); two in a row do. A client that comes often enough asks twice what its last
 * lease held if it used all of it, else what it used; never more than its pace predicts for a
 * lease's life, and at most {@link #MAX_ASK}. Redis grants at most a quarter of what is left, so
 * near the limit there is none.
 *
 * <p>Bounded in entries ({@link #MAX_CLIENTS}; when full, expired leases make room and otherwise no
 * lease is asked for) and in time (a lease lives at most a second, {@link #lifetime(Rule)}). Unused
 * permits waiting to go back are bounded too ({@link #MAX_PENDING}); past that they stay counted
 * until their window frees them. Thread-safe.
 */
public final class QuotaLeases {
    /** The most clients holding a lease on this node at once. */
    public static final int MAX_CLIENTS = 10_000;
    /** The most permits asked for one client at once. */
    static final long MAX_ASK = 1024;
    /**
     * The fewest admissions a client must be expected to make in one lease's life before it is
     * lent anything: below that a lease mostly goes back unused.
     */
    static final long MIN_EXPECTED = 4;
    /** Unused parts of leases waiting for a round trip, at most. */
    static final int MAX_PENDING = 1_000;
    /** Unused parts sent with one decision, at most. */
    static final int RETURNS_PER_CALL = 16;
    /** The longest lease: a fraction of the window, and never more than this. */
    static final Duration MAX_LIFETIME = Duration.ofSeconds(1);

    private final Rule rule;
    private final boolean sliding;
    private final long lifetimeMicros;
    private final long lifetimeNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Unused> unused = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong nextSweep = new AtomicLong();

    /** A lease's life for a rule: a tenth of its window, at most {@link #MAX_LIFETIME}. */
    static Duration lifetime(Rule rule) {
        Duration tenth = rule.window().dividedBy(10);
        return tenth.compareTo(MAX_LIFETIME) < 0 ? tenth : MAX_LIFETIME;
    }

    /**
     * @param rule the limiter's one rule ({@code LeaseRules.supports})
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public QuotaLeases(Rule rule, LongSupplier nanoClock) {
        this.rule = rule;
        this.sliding = rule.algorithm() == Algorithm.SLIDING_LOG;
        this.lifetimeMicros = TimeUnit.NANOSECONDS.toMicros(lifetime(rule).toNanos());
        this.lifetimeNanos = TimeUnit.MICROSECONDS.toNanos(lifetimeMicros);
        this.nanoClock = nanoClock;
    }

    /**
     * An admission from the client's lease, or null when it holds none with enough permits left
     * (then Redis decides). Its remaining is what Redis said after the admission that took the
     * lease, less what the node admitted from it since, as one-by-one decisions from this node
     * would have said; its receipt gives the permits back to the lease while it lives.
     */
    Decision admit(String key, long permits) {
        Lease lease = leases.get(key);
        return lease == null ? null : lease.admit(permits, nanoClock.getAsLong());
    }

    /**
     * How many permits to ask for with the client's next round trip; settles the lease it holds
     * (its unused permits wait to go back).
     */
    long ask(String key) {
        Lease last = leases.get(key);
        if (last == null) {
            return 0;
        }
        return last.settleForNext(nanoClock.getAsLong());
    }

    /** The longest a lease asked for now may live, in microseconds. */
    long lifetimeMicros() {
        return lifetimeMicros;
    }

    /**
     * Keeps what Redis granted with the client's admission (or, without a grant, that the client was
     * seen), from the moment the call was sent: the lease never outlives what Redis allowed.
     *
     * @param grant null when Redis granted nothing
     * @param sentAt the nano clock when the call went out
     */
    void granted(String key, Decision admission, QuotaGrant grant, long sentAt) {
        long permits = grant == null ? 0 : grant.permits();
        long lifetime = grant == null ? lifetimeNanos : TimeUnit.MICROSECONDS.toNanos(grant.lifetimeMicros());
        Lease previous = leases.get(key);
        Lease lease = new Lease(key, admission, grant, sentAt + lifetime, sentAt, previous != null && previous.quickReturn);
        if (leases.size() >= MAX_CLIENTS && !leases.containsKey(key)) {
            settleExpired(sentAt);
            if (leases.size() >= MAX_CLIENTS) {
                lease.settle(Long.MAX_VALUE);
                return;
            }
        }
        Lease replaced = leases.put(key, lease);
        if (replaced != null) {
            replaced.settle(nanoClock.getAsLong());
        }
    }

    /** The nano clock leases are timed by. */
    long now() {
        return nanoClock.getAsLong();
    }

    /**
     * Unused parts of leases to give back with the next round trip, at most {@code max}; leases
     * that ended meanwhile are settled first (at most once per tenth of a lease's life), so a lease
     * whose client never came back goes back with the node's next round trip for anyone.
     */
    List<Receipt> takeUnused(int max) {
        settleExpired(nanoClock.getAsLong());
        if (pending.get() == 0) {
            return Collections.emptyList();
        }
        List<Receipt> taken = new ArrayList<>();
        Unused each;
        while (taken.size() < max && (each = unused.poll()) != null) {
            pending.decrementAndGet();
            taken.add(each.receipt);
        }
        return taken;
    }

    /** Ends every lease now (the rules changed, or the node stops): their unused permits wait to go back. */
    void settleAll() {
        for (Lease lease : leases.values()) {
            lease.settle(Long.MAX_VALUE);
        }
        leases.clear();
    }

    /**
     * Forgets the client's lease without giving it back, and the rest of an earlier lease still
     * waiting to go back: its keys were just deleted, and a permit given back into its fresh state
     * would be counted twice.
     */
    void forget(String key) {
        Lease lease = leases.remove(key);
        if (lease != null) {
            lease.drop();
        }
        for (Unused each : unused) {
            if (each.key.equals(key) && unused.remove(each)) {
                pending.decrementAndGet();
            }
        }
    }

    /**
     * Forgets every lease and every rest waiting to go back: some client's keys were deleted on
     * another node, which one is not known here (see {@link #forget}). The others' unused permits
     * stay counted until their window passes.
     */
    void dropAll() {
        leases.forEach((key, lease) -> {
            if (leases.remove(key, lease)) {
                lease.drop();
            }
        });
        while (unused.poll() != null) {
            pending.decrementAndGet();
        }
    }

    /** Clients holding a lease or seen lately. */
    int size() {
        return leases.size();
    }

    /** Unused permits' receipts waiting for a round trip. */
    int pending() {
        return pending.get();
    }

    /**
     * Makes room: ends and drops the expired leases, at most once per tenth of a lease's life, so
     * that a flood of new clients into a full table costs one scan per interval, not one per client.
     */
    private void settleExpired(long now) {
        long due = nextSweep.get();
        if (now - due < 0 || !nextSweep.compareAndSet(due, now + lifetimeNanos / 10)) {
            return;
        }
        leases.values().removeIf(lease -> {
            if (now - lease.expiresAt < 0) {
                return false;
            }
            lease.settle(now);
            return true;
        });
    }

    private void giveBackLater(String key, Receipt receipt) {
        if (pending.incrementAndGet() > MAX_PENDING) {
            // Bounded: these permits stay counted until their window or log frees them.
            pending.decrementAndGet();
            return;
        }
        unused.add(new Unused(key, receipt));
    }

    /** A lease's rest waiting for a round trip, with its client's key (a reset drops it). */
    private static final class Unused {
        final String key;
        final Receipt receipt;

        Unused(String key, Receipt receipt) {
            this.key = key;
            this.receipt = receipt;
        }
    }

    /** One client's lease on this node. */
    private final class Lease implements Receipt.Issuer {
        private final String key;
        private final QuotaGrant grant;
        private final List<String> keys;
        private final long granted;
        private final long expiresAt;
        /** When the round trip that took the lease went out. */
        private final long sentAt;
        /** Whether the client came back quickly before that round trip too ({@link #settleForNext}). */
        private final boolean paced;
        /** Whether the client came back quickly after it: the next lease's {@link #paced}. */
        private volatile boolean quickReturn;
        /** Redis's answer to the admission that took the lease: the rule in force, what was left, the reset. */
        private final Decision atGrant;
        private long left;
        private long used;
        private boolean settled;

        Lease(String key, Decision admission, QuotaGrant grant, long expiresAt, long sentAt, boolean paced) {
            this.key = key;
            this.paced = paced;
            this.grant = grant;
            this.keys = grant == null ? null : grant.keys();
            this.granted = grant == null ? 0 : grant.permits();
            this.left = granted;
            this.expiresAt = expiresAt;
            this.sentAt = sentAt;
            this.atGrant = admission;
        }

        synchronized Decision admit(long permits, long now) {
            if (settled || now - expiresAt >= 0 || left < permits) {
                return null;
            }
            left -= permits;
            used += permits;
            Rule inForce = atGrant.rule();
            long resetAt = sentAt + atGrant.resetAfter().toNanos();
            Duration reset = sliding ? inForce.window() : Duration.ofNanos(Math.max(0, resetAt - now));
            Decision admission = Decision.of(true, inForce, atGrant.remaining() - used, Duration.ZERO, reset);
            return DecisionAccess.withReceipt(admission, new Receipt(this, keys, new long[] {permits}, new long[] {0}));
        }

        /**
         * Ends the lease and says what to ask for next: nothing unless the client's pace since the
         * round trip that took this lease (that admission and the lease's since) predicts at least
         * {@link #MIN_EXPECTED} admissions in a lease's life, and it did so the time before too;
         * else twice what it held if all of it was used, or what was used, and never more than the
         * pace predicts.
         */
        synchronized long settleForNext(long now) {
            settle(now);
            // Over the whole time since: a lease used to its end took a lease's life, and a client
            // back after a long pause has a pace near nothing.
            long since = Math.max(1, now - sentAt);
            long expected = (used + 1) * lifetimeNanos / since;
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
            if (left > 0) {
                giveBackLater(key, grant.ticket(left));
                left = 0;
            }
        }

        synchronized void drop() {
            settled = true;
            left = 0;
        }

        /** A refund of an admission made from this lease: back into the lease while it lives. */
        @Override
        public synchronized boolean giveBack(Receipt receipt) {
            long permits = receipt.permits(0);
            if (settled || nanoClock.getAsLong() - expiresAt >= 0 || permits > used) {
                return false;
            }
            left += permits;
            used -= permits;
            return true;
        }
    }
}
