package dev.ratelimit.internal.claim;

import dev.ratelimit.internal.support.Immutable;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * What an admission took, kept with its {@code Decision} so that the permits can be given back
 * once ({@code RateLimiter.refund}): the Redis keys, each rule's permits, each rule's stamp from
 * the script (a window, a period, a log entry's score, a place in a gcra or token-bucket state;
 * see {@code refund.lua}) and the life of the state it was taken from (0 where the script keeps
 * none), and who can give them back. Spent at most once, so a refund is idempotent per receipt.
 * Thread-safe.
 */
public final class Receipt {
    /** Gives an admission's permits back: the evaluator that took them, or the quota lease they came from. */
    public interface Issuer {
        /** Whether something was given back; a RedisFailureException when Redis cannot be asked. */
        boolean giveBack(Receipt receipt);

        /**
         * Takes the receipt's permits on top of what the admission took, past the limit too (an after-charge); an
         * issuer that cannot keep a debt (a quota lease) charges nothing. Whether something was charged.
         */
        default boolean charge(Receipt receipt) {
            return false;
        }
    }

    /** A field, not an AtomicBoolean: every admission has a receipt, and this is one object less each. */
    private static final AtomicIntegerFieldUpdater<Receipt> SPENT =
            AtomicIntegerFieldUpdater.newUpdater(Receipt.class, "spent");

    private final Issuer issuer;
    private final List<String> keys;
    /** Each rule's permits; null when every rule took {@link #permitsEach} ({@link #withPermits}). */
    private final long[] permits;
    private final long permitsEach;
    private final long[] stamps;
    private final long[] lives;
    /** 1 once claimed. */
    private volatile int spent;

    /** A receipt of states that keep no life (a quota lease's own admissions). */
    public Receipt(Issuer issuer, List<String> keys, long[] permits, long[] stamps) {
        this(issuer, keys, permits, stamps, new long[permits.length]);
    }

    /** A quota lease's ticket has one stamp more, the instant it was lent; a life of 0: none kept. */
    public Receipt(Issuer issuer, List<String> keys, long[] permits, long[] stamps, long[] lives) {
        this.issuer = issuer;
        this.keys = Immutable.copyOf(keys);
        this.permits = permits.clone();
        this.permitsEach = 0;
        this.stamps = stamps.clone();
        this.lives = lives.clone();
    }

    /**
     * Another receipt of the same admission: its keys and stamps, which nothing changes, shared, and
     * no array of permits (every admission from a quota lease makes one of these).
     */
    private Receipt(Receipt same, long permitsEach) {
        this.issuer = same.issuer;
        this.keys = same.keys;
        this.permits = null;
        this.permitsEach = permitsEach;
        this.stamps = same.stamps;
        this.lives = same.lives;
    }

    /** True the first time only: the caller may then give the permits back. */
    public boolean claim() {
        return SPENT.compareAndSet(this, 0, 1);
    }

    /** Gives the permits back through the issuer; call after {@link #claim()}. */
    public boolean giveBack() {
        return issuer.giveBack(this);
    }

    /** Takes this receipt's permits on top of the admission's through the issuer; call after {@link #claim()}. */
    public boolean charge() {
        return issuer.charge(this);
    }

    /**
     * The same admission's stamps and keys with other permits: a part of a quota lease given back, a
     * part of an admission an after-charge gives back, or the permits it charges.
     */
    public Receipt withPermits(long permits) {
        return new Receipt(this, permits);
    }

    /** Who gives the permits back: the evaluator (with the rules it decided under), or the quota lease. */
    public Issuer issuer() {
        return issuer;
    }

    public List<String> keys() {
        return keys;
    }

    public long permits(int rule) {
        return permits == null ? permitsEach : permits[rule];
    }

    public long stamp(int rule) {
        return stamps[rule];
    }

    /** The life of the rule's state the stamp was taken in (a script's birth instant), 0 where none is kept. */
    public long life(int rule) {
        return lives[rule];
    }
}
