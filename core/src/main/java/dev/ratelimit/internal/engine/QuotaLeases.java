package dev.ratelimit.internal.engine;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Quota leases of one limiter on this node: permits Redis handed out ahead of use, with an
 * admission, for a client that keeps coming back far from its limit. The node admits that client's
 * next requests from its lease without a round trip, until the lease is used up or ends; a denial
 * is never made here. Redis counted the leased permits when it granted them (see
 * limiter-driver.lua), so no node ever admits more than the limit; what a node did not use goes
 * back with its next round trip ({@code refund.lua}), so the client then gets its full limit.
 *
 * <p>How much a client asks for, and when it is worth a lease at all: {@link QuotaLease#settleForNext}.
 *
 * <p>One ask at a time per client: concurrent requests that miss the lease together do not each
 * ask for one. A lease whose call was in flight when the leases were ended (the rules changed, a
 * client was reset) is ended as it arrives: nothing is admitted from it.
 *
 * <p>Bounded in entries ({@link #MAX_CLIENTS}; when full, expired leases make room and otherwise no
 * lease is asked for) and in time (a lease lives at most a second, {@link #lifetime(Rule)}). Nothing
 * is lent while the leases out and the rests waiting to go back reach {@link #MAX_PENDING}, so no rest
 * is dropped for want of room; a rest goes back within {@link #GIVE_BACK_WITHIN} of its lease's end or
 * not at all ({@link LeaseRests}). Thread-safe.
 */
final class QuotaLeases {
    /** The most clients holding a lease on this node at once. */
    public static final int MAX_CLIENTS = 10_000;
    /** Leases holding permits and their rests waiting for a round trip, at most, before nothing more is lent. */
    static final int MAX_PENDING = 1_000;
    /**
     * How long after its lease's end a rest may still go back; later it stays counted. Bounds how
     * long a reset's guard must live ({@link #RESET_GUARD}).
     */
    static final Duration GIVE_BACK_WITHIN = Duration.ofSeconds(2);
    /**
     * How long a reset's guard lives beside the client's key ({@code RedisKeys.resetGuard}): more than
     * a lease's life and {@link #GIVE_BACK_WITHIN}, with seconds to spare for a slow round trip.
     */
    public static final Duration RESET_GUARD = Duration.ofSeconds(10);
    /** Unused parts sent with one decision, at most. */
    static final int RETURNS_PER_CALL = 16;
    /** The longest lease: a fraction of the window, and never more than this. */
    static final Duration MAX_LIFETIME = Duration.ofSeconds(1);

    final boolean sliding;
    /** gcra and token-bucket: a state that clears over time, permit by permit (see {@code QuotaLease.clearAt}). */
    final boolean refilling;
    private final long lifetimeMicros;
    final long lifetimeNanos;
    private final LongSupplier nanoClock;
    private final long giveBackWithinNanos = GIVE_BACK_WITHIN.toNanos();
    private final ConcurrentHashMap<String, QuotaLease> leases = new ConcurrentHashMap<>();
    private final LeaseRests rests = new LeaseRests();
    /**
     * Leases holding permits not yet settled: with {@link #rests}, what {@link #MAX_PENDING} bounds,
     * and the ones whose end must be noticed soon (their rests go back). Beside {@link #leases},
     * which mostly holds clients only seen, so that noticing ends scans no more than these.
     */
    private final Set<QuotaLease> lent = ConcurrentHashMap.newKeySet();
    /** Moves on whenever leases are ended or dropped wholesale: a grant sent before is stale. */
    private final LeaseEpoch epoch = new LeaseEpoch();
    /** When the next scan of the whole table may run: to make room in a full one, or to forget the ended. */
    private final AtomicLong nextRoomSweep;
    private final AtomicLong nextForgetSweep;
    /** When the next scan of {@link #lent} may run. Each starts at the clock's now: a nano clock may read negative. */
    private final AtomicLong nextLentSweep;
    /** Tests only (QuotaLeasesRaceTest): run by a grant between its first look at the epoch and its install. */
    Runnable beforeInstall;

    /** A lease's life for a rule: a tenth of its window, at most {@link #MAX_LIFETIME}. */
    static Duration lifetime(Rule rule) {
        Duration tenth = rule.window().dividedBy(10);
        return tenth.compareTo(MAX_LIFETIME) < 0 ? tenth : MAX_LIFETIME;
    }

    /** @param rule the limiter's one rule (the one {@code QuotaLeaseRules.check} lets lend) */
    public QuotaLeases(Rule rule, LongSupplier nanoClock) {
        this.sliding = rule.algorithm() == Algorithm.SLIDING_LOG;
        this.refilling = rule.algorithm() == Algorithm.GCRA || rule.algorithm() == Algorithm.TOKEN_BUCKET;
        this.lifetimeMicros = TimeUnit.NANOSECONDS.toMicros(lifetime(rule).toNanos());
        this.lifetimeNanos = TimeUnit.MICROSECONDS.toNanos(lifetimeMicros);
        this.nanoClock = nanoClock;
        long now = nanoClock.getAsLong();
        this.nextRoomSweep = new AtomicLong(now);
        this.nextForgetSweep = new AtomicLong(now);
        this.nextLentSweep = new AtomicLong(now);
    }

    /**
     * An admission from the client's lease, or null when it holds none with enough permits left
     * (then Redis decides). Its remaining is what Redis said after the admission that took the
     * lease, less what the node admitted from it since, as one-by-one decisions from this node
     * would have said; its receipt gives the permits back to the lease while it lives.
     */
    Decision admit(String key, long permits) {
        QuotaLease lease = leases.get(key);
        return lease == null ? null : lease.admit(permits, nanoClock.getAsLong());
    }

    /** How many permits to ask for with the client's next round trip; settles the lease it holds. */
    long ask(String key) {
        QuotaLease last = leases.get(key);
        if (last == null) {
            return 0;
        }
        long ask = last.settleForNext(nanoClock.getAsLong());
        return lent.size() + rests.size() < MAX_PENDING ? ask : 0;
    }

    /** Read before a call that may take a lease is sent, and handed to {@link #granted}. */
    long epoch() {
        return epoch.current();
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
     * @param sentInEpoch {@link #epoch()} when the call went out: if leases were ended since, this
     *     one ends as it arrives (its rest goes back), for it was taken under rules or a state that
     *     may no longer hold; an ending on another thread while this runs too ({@link LeaseEpoch})
     */
    void granted(String key, Decision admission, QuotaGrant grant, long sentAt, long sentInEpoch) {
        long lifetime = grant == null ? lifetimeNanos : TimeUnit.MICROSECONDS.toNanos(grant.lifetimeMicros());
        QuotaLease previous = leases.get(key);
        QuotaLease lease = new QuotaLease(this, key, admission, grant, sentAt + lifetime, sentAt, previous != null && previous.quickReturn);
        // A first look without the lock, so that a stale grant makes no room in a full table.
        if (epoch.current() != sentInEpoch) {
            lease.settle(Long.MAX_VALUE);
            return;
        }
        if (leases.size() >= MAX_CLIENTS && !leases.containsKey(key)) {
            settleExpired(leases.values(), sentAt, nextRoomSweep, lifetimeNanos / 10);
            if (leases.size() >= MAX_CLIENTS) {
                lease.settle(Long.MAX_VALUE);
                return;
            }
        }
        Runnable hook = beforeInstall;
        if (hook != null) {
            hook.run();
        }
        QuotaLease[] replaced = new QuotaLease[1];
        QuotaLease kept = epoch.ifStill(sentInEpoch, () -> leases.compute(key, (k, current) -> {
            // A concurrent request's lease, taken while this call (which asked nothing) was in flight,
            // stays: replacing it would send its permits straight back.
            if (grant == null && current != null && current.holdsPermits()) {
                return current;
            }
            replaced[0] = current;
            return lease;
        }));
        if (kept != lease) {
            lease.settle(Long.MAX_VALUE);
        } else if (replaced[0] != null) {
            replaced[0].settle(nanoClock.getAsLong());
        }
    }

    long now() {
        return nanoClock.getAsLong();
    }

    /**
     * Unused parts of leases to give back with the next round trip, at most {@code max}. Leases
     * holding permits that ended meanwhile are settled first (at most once per tenth of a lease's
     * life), so a lease whose client never came back goes back with the node's next round trip for
     * anyone; the clients only seen are forgotten once they ended, at most once per lease's life
     * (a scan of up to {@link #MAX_CLIENTS} entries, which every tenth cost 8-11 % of a busy node's
     * samples at 10,000 clients).
     */
    List<Receipt> takeUnused(int max) {
        long now = nanoClock.getAsLong();
        settleExpired(lent, now, nextLentSweep, lifetimeNanos / 10);
        settleExpired(leases.values(), now, nextForgetSweep, lifetimeNanos);
        return rests.take(max, now);
    }

    /** Ends every lease now (the rules changed, or the node stops): their unused permits wait to go back. */
    void settleAll() {
        epoch.end();
        removeAll(lease -> lease.settle(Long.MAX_VALUE));
    }

    /**
     * Forgets the client's lease without giving it back, and the rest of an earlier lease still
     * waiting to go back: its keys were just deleted, and a permit given back into its fresh state
     * would be counted twice.
     */
    void forget(String key) {
        epoch.end();
        QuotaLease lease = leases.remove(key);
        if (lease != null) {
            lease.drop();
        }
        rests.forget(key);
    }

    /**
     * Forgets every lease and every rest waiting to go back: some client's keys were deleted on
     * another node, which one is not known here (see {@link #forget}). The others' unused permits
     * stay counted until their window passes.
     */
    void dropAll() {
        epoch.end();
        removeAll(QuotaLease::drop);
        rests.clear();
    }

    /** Takes each lease out of the table, then ends it: none leaves the table unended. */
    private void removeAll(Consumer<QuotaLease> ending) {
        leases.forEach((key, lease) -> {
            if (leases.remove(key, lease)) {
                ending.accept(lease);
            }
        });
    }

    /** A lease ended with permits left: they wait to go back, at most {@link #GIVE_BACK_WITHIN} after its end. */
    void giveBackLater(String key, Receipt receipt, long leaseEnd) {
        rests.add(key, receipt, leaseEnd + giveBackWithinNanos);
    }

    /** A lease holding permits was taken (true) or ended (false). */
    void lent(QuotaLease lease, boolean taken) {
        if (taken) {
            lent.add(lease);
        } else {
            lent.remove(lease);
        }
    }

    /** Clients holding a lease or seen lately. */
    int size() {
        return leases.size();
    }

    /** Unused permits' receipts waiting for a round trip. */
    int pending() {
        return rests.size();
    }

    /**
     * Ends and drops the expired leases {@code among} those holding permits or the whole table, at most
     * once per {@code interval} of {@code next}, so that a flood of new clients into a full table costs
     * one scan per interval, not one per client.
     */
    private void settleExpired(Collection<QuotaLease> among, long now, AtomicLong next, long interval) {
        if (!due(next, now, interval)) {
            return;
        }
        for (QuotaLease lease : among) {
            if (now - lease.expiresAt >= 0) {
                lease.settle(now);
                leases.remove(lease.key, lease);
            }
        }
    }

    /** Whether a sweep timed by {@code next} is due now; if so, the next one is {@code interval} later. */
    private static boolean due(AtomicLong next, long now, long interval) {
        long at = next.get();
        return now - at >= 0 && next.compareAndSet(at, now + interval);
    }
}
