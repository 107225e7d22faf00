package dev.ratelimit;

import dev.ratelimit.internal.claim.ConcurrencyLease;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one request for permits: a normal outcome, never an exception.
 *
 * <p>When a limiter has several rules, the decision speaks for the rule that governs it: on a
 * denial, the denying rule that frees up last; when allowed, the rule with the fewest permits
 * left.
 */
public final class Decision {
    private final boolean allowed;
    private final Rule rule;
    private final long remaining;
    private final Duration retryAfter;
    private final Duration resetAfter;
    private final boolean degraded;
    private final boolean local;
    /** What an admission took, for {@link RateLimiter#refund}; null when nothing can be given back. */
    private final Receipt receipt;
    /** The lease an admission by {@link Algorithm#CONCURRENCY} holds in Redis, or null. */
    private final ConcurrencyLease lease;
    /** {@link #NO_PENALTY}, {@link #OPENS_PENALTY} or {@link #IN_PENALTY}: see {@link #penalized()}. */
    private final byte penalty;
    /** Zero, or for a delayed admission how long the caller must wait before acting: see {@link #delay()}. */
    private final Duration delay;

    static final byte NO_PENALTY = 0;
    /** The denial that found the client over its limit and put it in the penalty box. */
    static final byte OPENS_PENALTY = 1;
    /** A denial while the client is in the penalty box. */
    static final byte IN_PENALTY = 2;

    private Decision(boolean allowed, Rule rule, long remaining, Duration retryAfter, Duration resetAfter,
            boolean degraded, boolean local) {
        this(allowed, rule, remaining, retryAfter, resetAfter, degraded, local, null, null, NO_PENALTY, Duration.ZERO);
    }

    /** Every field; for {@code DecisionAccess}, which makes a script's decision in one object. */
    Decision(boolean allowed, Rule rule, long remaining, Duration retryAfter, Duration resetAfter,
            boolean degraded, boolean local, Receipt receipt, ConcurrencyLease lease, byte penalty, Duration delay) {
        this.allowed = allowed;
        this.rule = Objects.requireNonNull(rule, "rule");
        this.remaining = remaining;
        this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
        this.resetAfter = Objects.requireNonNull(resetAfter, "resetAfter");
        this.degraded = degraded;
        this.local = local;
        this.receipt = receipt;
        this.lease = lease;
        this.penalty = penalty;
        this.delay = delay;
    }

    /** This admission, holding the lease Redis recorded for it; for {@code DecisionAccess}. */
    Decision withLease(ConcurrencyLease lease) {
        return new Decision(allowed, rule, remaining, retryAfter, resetAfter, degraded, local, receipt, lease, penalty, delay);
    }

    /** What the penalty box had to do with this decision; for {@code DecisionAccess}. */
    byte penalty() {
        return penalty;
    }

    /**
     * Whether this is a denial by the rule's penalty box ({@link Rule#penalty()}): the client went over
     * its limit, with this request or before, and is shut out until {@link #retryAfter()}.
     */
    public boolean penalized() {
        return penalty != NO_PENALTY;
    }

    ConcurrencyLease lease() {
        return lease;
    }

    Receipt receipt() {
        return receipt;
    }

    /**
     * Whether this admission holds a lease ({@link Algorithm#CONCURRENCY}) that
     * {@link RateLimiter#release(Decision)} must give back when the work it admitted ends; until
     * then, or until the rule's {@code window} passes, it counts as in flight. False for every other
     * decision, denials and degraded ones included.
     */
    public boolean holdsLease() {
        return lease != null;
    }

    /**
     * An admission whose permits were taken for an instant ahead, {@code delay} from now, by
     * {@link RateLimiter#tryAcquire(String, Duration)}: the caller must not act on it before then.
     *
     * @param remaining permits left at that instant, at least 0
     * @param delay how long the caller must wait, above zero
     * @param resetAfter how long from now until the rule's full capacity is available again
     */
    public static Decision delayed(Rule rule, long remaining, Duration delay, Duration resetAfter) {
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be above zero, but was " + delay);
        }
        return new Decision(true, rule, Math.max(0, remaining), Duration.ZERO, resetAfter, false, false, null, null,
                NO_PENALTY, delay);
    }

    /**
     * How long the caller must wait before acting on this admission: zero, except for an admission
     * {@link RateLimiter#tryAcquire(String, Duration)} took for an instant ahead (the request was over
     * the limit, and its permits free up within the caller's {@code maxDelay}). Such an admission
     * counts from that instant, exactly as if the client had come back then; acting earlier would
     * pass the limit.
     */
    public Duration delay() {
        return delay;
    }

    /** Whether this admission is for an instant ahead: {@link #delay()} is above zero. */
    public boolean delayed() {
        return !delay.isZero();
    }

    /**
     * Makes a decision; the limiter does this, tests and callers' own stand-ins may too.
     *
     * @param allowed whether the permits were granted
     * @param rule the rule that governs the decision
     * @param remaining permits left after this decision, at least 0
     * @param retryAfter zero when allowed; otherwise how long until the same request would be allowed
     * @param resetAfter how long until the rule's full capacity is available again
     */
    public static Decision of(boolean allowed, Rule rule, long remaining, Duration retryAfter, Duration resetAfter) {
        return new Decision(allowed, rule, Math.max(0, remaining), retryAfter, resetAfter, false, false);
    }

    /**
     * A decision made without Redis, by a {@link FailurePolicy}: nothing was counted.
     *
     * @param allowed what the policy says
     * @param rule the limiter's first rule
     * @param retryAfter when denied, how long the caller should wait before trying again
     */
    public static Decision degraded(boolean allowed, Rule rule, Duration retryAfter) {
        return new Decision(allowed, rule, allowed ? rule.capacity() : 0, allowed ? Duration.ZERO : retryAfter,
                Duration.ZERO, true, false);
    }

    /**
     * A decision this node made alone, in memory, because Redis could not be asked and the failure
     * policy is {@link FailurePolicy#LOCAL}: a full decision of the rule (at its local limit), both
     * {@link #degraded()} and {@link #local()}.
     *
     * @param rule the local rule that governs the decision (its limit is the local limit)
     * @param remaining permits left on this node after this decision, at least 0
     * @param retryAfter zero when allowed; otherwise how long until this node would allow the same request
     * @param resetAfter how long until this node's state for the client is clear
     */
    public static Decision local(boolean allowed, Rule rule, long remaining, Duration retryAfter,
            Duration resetAfter) {
        return new Decision(allowed, rule, Math.max(0, remaining), retryAfter, resetAfter, true, true);
    }

    /**
     * Whether Redis could not be asked and a {@link FailurePolicy} decided instead. HTTP adapters
     * answer a degraded denial with 503, not 429, and send no rate-limit headers, unless the
     * decision is also {@link #local()}.
     */
    public boolean degraded() {
        return degraded;
    }

    /**
     * Whether this node decided alone, in memory, at its local limit ({@link FailurePolicy#LOCAL});
     * such a decision is also {@link #degraded()}, and HTTP adapters answer it like one from Redis:
     * the rate-limit headers, and a denial with the policy's status (429).
     */
    public boolean local() {
        return local;
    }

    /** Whether the permits were granted (and counted). */
    public boolean allowed() {
        return allowed;
    }

    /** The rule's limit: permits per window. */
    public long limit() {
        return rule.limit();
    }

    /** Permits still available to this client right now, at least 0. */
    public long remaining() {
        return remaining;
    }

    /**
     * How long until a request for the same permits would be allowed, if nobody else takes them;
     * {@link Duration#ZERO} when allowed. For the exact algorithms a retry after exactly this long
     * is admitted.
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** {@link #retryAfter()} in whole seconds, rounded up, at least 1 when denied: for {@code Retry-After}. */
    public long retryAfterSeconds() {
        return allowed ? 0 : Math.max(1, Durations.ceilSeconds(retryAfter));
    }

    /** How long until the full capacity is available again (the window ends or the bucket is full). */
    public Duration resetAfter() {
        return resetAfter;
    }

    /** {@link #resetAfter()} in whole seconds, rounded up. */
    public long resetAfterSeconds() {
        return Durations.ceilSeconds(resetAfter);
    }

    /** The rule that governs this decision. */
    public Rule rule() {
        return rule;
    }

    @Override
    public String toString() {
        return (allowed ? "allowed" : "denied") + (delayed() ? " in " + Durations.format(delay) : "") + (penalty != NO_PENALTY ? " (penalty)" : "") + (local ? " (locally: Redis failed)" : degraded ? " (degraded: Redis failed)" : "") + " by " + rule.name() + ": remaining " + remaining
                + (allowed ? "" : ", retry after " + Durations.format(retryAfter))
                + ", reset after " + Durations.format(resetAfter);
    }
}
