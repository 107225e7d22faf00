package dev.ratelimit;

import dev.ratelimit.internal.engine.DecisionAccounting;
import dev.ratelimit.internal.engine.DecisionEngine;
import dev.ratelimit.internal.engine.EngineBuilder;
import dev.ratelimit.internal.engine.FailureAnswer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Decides whether a client may go ahead, against state kept in Redis, so that every application node sharing the Redis
 * enforces one limit. Each decision is one round trip and atomic in Redis: limiters on many nodes and threads never
 * admit more than the rules allow.
 *
 * <p>Several rules (say 10 per second and 1000 per hour) are decided together, all or nothing: a denial by one rule
 * consumes nothing from the others. Thread-safe; build one per policy, keep it.
 *
 * <p>A client key is an address, a user, an API key...; long or unusual keys are digested. Unless a method says
 * otherwise, a null or empty key throws {@link IllegalArgumentException}, and a Redis that cannot be asked throws
 * {@link RedisFailureException} unless a failure policy is set ({@link RateLimiterBuilder#onRedisFailure}). What gives
 * permits back ({@link #refund}, {@link #charge}, {@link #release}, {@link #giveBackLeases}) never throws for a Redis
 * failure: it is logged, and what did not go back stays counted (erring toward denying) until its window frees it.
 *
 * <pre>{@code
 * try (RedisStore redis = RedisStore.connect("redis://localhost:6379")) {
 *     RateLimiter limiter = RateLimiter.builder(redis)
 *             .policyName("api")
 *             .rule(Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)))
 *             .rule(Rule.of(Algorithm.SLIDING_LOG, 1000, Duration.ofHours(1)))
 *             .build();
 *     Decision decision = limiter.tryAcquire("client-42");
 *     if (!decision.allowed()) {
 *         // answer 429, Retry-After: decision.retryAfterSeconds()
 *     }
 * }
 * }</pre>
 */
public final class RateLimiter {
    /** Key prefix unless set. */
    public static final String DEFAULT_KEY_PREFIX = "ratelimit:";
    /** The longest policy name and key prefix, so that Redis keys stay bounded. */
    public static final int MAX_NAME_LENGTH = EngineBuilder.MAX_NAME_LENGTH;
    /** The most denials one limiter remembers in the JVM. */
    public static final int LOCAL_DENY_CACHE_SIZE = DecisionEngine.LOCAL_DENY_CACHE_SIZE;
    /** The most clients one limiter tracks on its own while Redis cannot be asked ({@link FailurePolicy#LOCAL}). */
    public static final int LOCAL_LIMITER_SIZE = FailureAnswer.LOCAL_LIMITER_SIZE;
    /** What a degraded denial tells the client to wait. */
    public static final Duration DEGRADED_RETRY_AFTER = FailureAnswer.DEGRADED_RETRY_AFTER;

    private final DecisionEngine engine;
    private final Overrides overrides;

    RateLimiter(DecisionEngine engine) {
        this.engine = engine;
        this.overrides = new Overrides(engine.overrides);
    }

    /** Starts a limiter that keeps its state in the given Redis. */
    public static RateLimiterBuilder builder(RedisStore store) {
        return new RateLimiterBuilder(store);
    }

    /** Takes each rule's {@link Rule#cost() cost} in permits if every rule allows it. */
    public Decision tryAcquire(String key) {
        return engine.acquire(key);
    }

    /**
     * Takes each rule's cost if every rule allows it, each rule counting a client of its own: the dimensions of one
     * request, such as {@code global}, the user and the API key. All rules are decided at once, all or nothing: a
     * denial by one takes nothing from the others; the decision is the governing rule's. Keys are {@code
     * <keyPrefix><policyName>:{<policyName>}:<rule name>:<client>}: one Cluster slot per policy, so the decision stays
     * one exact script call there too.
     *
     * @param clientKeys one client key per rule, in the rules' order
     * @throws IllegalArgumentException also if the number of keys is not the number of rules
     * @throws IllegalStateException with {@code onRedisFailure=local}, which keeps one client per decision
     */
    public Decision tryAcquireEach(List<String> clientKeys) {
        return engine.acquireEach(clientKeys);
    }

    /**
     * As {@link #tryAcquire(String)}, but over the limit takes the cost for its instant within {@code maxDelay}
     * (1 ms to 60 s): {@link Decision#delay()}. One gcra, sliding-log, token-bucket or fixed-window rule, lua, no
     * leases or penalty.
     */
    public Decision tryAcquire(String key, Duration maxDelay) {
        return engine.acquire(key, maxDelay);
    }

    /**
     * Takes {@code permits} from every rule if every rule allows it; otherwise takes nothing.
     *
     * @throws IllegalArgumentException also if permits is below 1 or above a rule's capacity (never allowed)
     */
    public Decision tryAcquire(String key, long permits) {
        return engine.acquire(key, permits);
    }

    /**
     * Decides many clients at once, each with its permits, in one round trip to Redis (on Cluster, one per node holding
     * some of the keys). Each client is decided on its own, exactly as {@link #tryAcquire(String, long)} would decide
     * it: a denial of one takes nothing from another; the local deny cache, adaptive limits, listeners and counts apply
     * per key, and so does the failure policy (on Cluster, a node that fails degrades only the keys it holds).
     *
     * @param permitsByKey each client and its permits; may be empty
     * @return each client's decision, in the map's iteration order; unmodifiable
     * @throws IllegalArgumentException if the map is null, or a key is null or empty, or permits are
     *     null, below 1 or above a rule's capacity; the message names the key, and nothing is taken
     * @throws UnsupportedOperationException with transport {@link Transport#TRANSACTION} (not batched)
     * @throws RedisFailureException if Redis cannot be asked for some key and no failure policy is
     *     set; the keys Redis answered took their permits
     */
    public Map<String, Decision> tryAcquireAll(Map<String, Long> permitsByKey) {
        return engine.batches.tryAcquireAll(permitsByKey);
    }

    /**
     * Decides many clients at once, each for each rule's {@link Rule#cost() cost}, in one round trip as
     * {@link #tryAcquireAll(Map)} does: the decisions in the list's order, a key listed twice decided twice.
     *
     * @throws IllegalArgumentException if the list is null or holds a null or empty key
     * @throws UnsupportedOperationException with transport {@link Transport#TRANSACTION}
     */
    public List<Decision> tryAcquireAll(List<String> keys) {
        return engine.batches.tryAcquireAll(keys);
    }

    /**
     * Takes the permits, sleeping for each denial's retry-after and trying again, until the next wait
     * would end past {@code maxWait}; never busy-polls. For callers throttling their own outbound
     * calls; a server should deny at once, or delay without a thread ({@link #tryAcquire(String, Duration)}).
     *
     * @return the allowing decision, or the last denial when waiting longer would pass maxWait
     * @throws IllegalArgumentException for a bad key or permits (as tryAcquire) or a negative maxWait
     * @throws InterruptedException if the thread is interrupted while waiting; nothing was taken
     */
    public Decision acquire(String key, long permits, Duration maxWait) throws InterruptedException {
        return engine.acquireWaiting(key, permits, maxWait);
    }

    /** The client's state, taking nothing: would a request of each rule's cost be allowed, what remains. */
    public Decision peek(String key) {
        return engine.peek(key);
    }

    /**
     * Forgets the client: its next request finds every rule at full capacity. The client-reset mark (a
     * second call) makes every node forget all denials and quota it holds within {@link Overrides#REFRESH_INTERVAL}.
     */
    public void reset(String key) {
        engine.resets.reset(key);
    }

    /** The state of the clients {@link #tryAcquireEach} would decide, without taking anything; same checks. */
    public Decision peekEach(List<String> clientKeys) {
        return engine.peekEach(clientKeys);
    }

    /** Forgets each rule's client, as {@link #reset} does; a rule given null (a {@code global} one) keeps its count. */
    public void resetEach(List<String> clientKeys) {
        engine.resets.resetEach(clientKeys);
    }

    /**
     * Gives back the permits an admission took, as if the request had not been made, as far as the
     * client's state still holds them (HTTP's {@code countStatus}). One round trip, for every rule
     * of the decision; per algorithm, see README's "Login protection". Nothing happens for a denial,
     * a peek, a degraded decision, a {@code transaction} transport's decision, a decision already
     * settled (refunded or charged: at most once), nor once the admission's window has passed.
     *
     * @return whether permits were given back
     * @throws IllegalArgumentException if the key is null or empty, or the decision was made for another key
     */
    public boolean refund(String key, Decision decision) {
        return engine.refunds.refund(key, decision);
    }

    /**
     * Settles an admission at its real cost, known once the work is done (HTTP's {@code chargeAfter}): gives back what
     * it took beyond {@code usage}, or takes what usage passes it by, past the limit too: the client then owes a debt
     * and is denied on every node until it is paid (per algorithm, docs/configuration.md). One round trip; a decision
     * is settled at most once, as by {@link #refund}. Nothing happens where {@link #refund} does nothing, nor for a
     * leased admission. A Redis failure is counted in {@link RateLimiterStats#chargeFailures()}.
     *
     * @param usage the admission's real cost in permits, from 0 to the rule's capacity
     * @return whether the client's state changed
     * @throws IllegalArgumentException for a bad key (as {@link #refund}) or usage out of bounds
     * @throws IllegalStateException unless the limiter has one rule of {@code gcra}, {@code token-bucket},
     *     {@code fixed-window} or {@code sliding-log}, and no {@code leases} (their nodes would not see a debt)
     */
    public boolean charge(String key, Decision decision, long usage) {
        return engine.refunds.charge(key, decision, usage);
    }

    /**
     * Gives back the lease an admission of {@link Algorithm#CONCURRENCY} holds ({@link Decision#holdsLease()}): call it
     * once the admitted work has ended, however it ended (a {@code finally}). One round trip. A second release, or one
     * of a decision holding no lease, does nothing. A lease that could not go back expires by itself once the rule's
     * {@code window} has passed.
     */
    public void release(Decision decision) {
        engine.concurrencyLeases.release(decision);
    }

    /**
     * Ends the quota leases this node holds ({@link RateLimiterBuilder#leases(boolean)}), giving back what it did
     * not use, and says how many gave permits back: call it when the node stops. Does nothing without leases.
     */
    public int giveBackLeases() {
        return engine.giveBackLeases();
    }

    /** Redis failures met so far, decided or thrown; not {@link RateLimiterStats#redisRefusals() refusals}. */
    public long redisFailures() {
        return engine.accounting.redisFailures();
    }

    /** The counts so far, the latency of recent Redis calls, and what Redis last said about evicting keys. */
    public RateLimiterStats stats() {
        return new RateLimiterStats(engine.accounting.counts(), engine.refunds.charges(), engine.accounting.refusal(),
                engine.accounting.redisLatency(), engine.circuitState(), engine.eviction());
    }

    /**
     * What this limiter decided in the last five minutes, per second, and the clients it denied most: every decision
     * (Redis's, degraded, or the deny cache's), kept in bounded memory in this JVM, readable while Redis is down.
     */
    public RecentActivity recentActivity() {
        DecisionAccounting.Recent recent = engine.accounting.recent();
        return new RecentActivity(recent.firstSecond, recent.series, recent.mostDenied);
    }

    /** The failure policy, or null when failures are thrown. */
    public FailurePolicy failurePolicy() {
        return engine.onFailure.policy();
    }

    /** The rules this node applies alone (at their local limit) while Redis cannot be asked; null unless LOCAL. */
    public List<Rule> localRules() {
        return engine.onFailure.localRules();
    }

    /** How many clients this node tracks alone now: 0 unless Redis is failing under {@link FailurePolicy#LOCAL}. */
    public int localKeys() {
        return engine.onFailure.localKeys();
    }

    /** Tells adaptive limits how long an admitted request took to serve (the HTTP adapters call it); else a no-op. */
    public void recordAdmittedLatency(Duration latency) {
        engine.inForce.recordAdmittedLatency(latency);
    }

    /** The rules as they apply now: the configured ones, at a limit override, or scaled by adaptive limits. */
    public List<Rule> effectiveRules() {
        return engine.inForce.effectiveRules();
    }

    /** The policy's live overrides, shared by every node through Redis: see {@link Overrides}. */
    public Overrides overrides() {
        return overrides;
    }

    /** The adaptive factor last computed (1 without adaptive limits). */
    public double adaptiveFactor() {
        return engine.inForce.adaptiveFactor();
    }

    /** The name in Redis keys and headers. */
    public String policyName() {
        return engine.keys.policyName;
    }

    /** The prefix of every Redis key. */
    public String keyPrefix() {
        return engine.keys.keyPrefix;
    }

    /** The rules as configured. */
    public List<Rule> rules() {
        return engine.keys.rules;
    }

    /** How decisions reach Redis. */
    public Transport transport() {
        return engine.transport;
    }

    /** A client's Redis keys: {@code <keyPrefix><policyName>:{<clientKey>}}, and {@code :<rule>} with several rules. */
    public List<String> redisKeys(String key) {
        return engine.keys.of(key);
    }

    @Override
    public String toString() {
        return "RateLimiter(" + policyName() + ", " + rules() + ", " + transport() + ")";
    }
}
