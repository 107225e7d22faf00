package dev.ratelimit;

import dev.ratelimit.internal.engine.RulesInForce;
import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle of {@link LeasesModel}: the same algorithm without leases, deciding from one place (one
 * limiter, no deny cache) on a Redis of its own whose clock moves with the model's, fed every
 * admission the leased nodes made (from Redis and from leases) at the instant it was made, each
 * client's epochs (a reset starts one) under keys of their own.
 *
 * <p>Fed the admitted requests rather than all of them: fed the same requests, the oracle would admit
 * some that the nodes denied (a node may deny early while others hold leases: the price of leases),
 * and the two states would part ways for good. Fed what was admitted, its state is what one place
 * would hold for exactly those admissions, which the nodes' Redis must come back to once every lease
 * is given back: the liveness check. Its own denials are a second opinion on the bounds, from the
 * production script: for token-bucket and gcra it decides at the largest limit in force (the most
 * lenient); fixed-window and sliding-log only count here (a limit no admission reaches), since their
 * bounds span windows that a single limit cannot.
 */
final class ModelOracle {
    /** A limit no admission reaches: fixed-window and sliding-log only count in the oracle. */
    static final long COUNTING_LIMIT = 1_000_000_000L;

    private final ScriptedRedisGateway redis = new ScriptedRedisGateway();
    private final Rule configured;
    private final Map<Long, RateLimiter> byLimit = new HashMap<>();

    ModelOracle(Rule configured) {
        this.configured = configured;
    }

    void advance(Duration duration) {
        redis.advance(duration);
    }

    long nanoTime() {
        return redis.nanoTime();
    }

    private boolean counting() {
        return configured.algorithm() == Algorithm.FIXED_WINDOW || configured.algorithm() == Algorithm.SLIDING_LOG;
    }

    private RateLimiter limiter(long limit) {
        return byLimit.computeIfAbsent(limit, l -> {
            Rule rule = l == configured.limit() ? configured
                    : l == COUNTING_LIMIT ? Rule.of(configured.algorithm(), l, configured.window())
                    : RulesInForce.atLimit(List.of(configured), l).get(0);
            return RateLimiter.builder(TestStores.over(redis)).policyName("oracle").keyPrefix("o:")
                    .localDenyCache(false).clock(redis::nanoTime).rule(rule).build();
        });
    }

    private static String key(int client, int epoch) {
        return "c" + client + "-e" + epoch;
    }

    /**
     * Decides the admission from one place.
     *
     * @param limitInForce the largest limit any node applied at the admission's instant
     * @return null when one place admits it too, else why not
     */
    String feed(AdmissionBounds.Admission admission, long limitInForce) {
        if (redis.nanoTime() != admission.nanos()) {
            throw new IllegalStateException("the oracle's clock " + redis.nanoTime() + " is not the admission's "
                    + admission.nanos());
        }
        long limit = counting() ? COUNTING_LIMIT : limitInForce;
        Decision decision = limiter(limit).tryAcquire(key(admission.client(), admission.epoch()), admission.permits());
        return decision.allowed() ? null : "the oracle (" + configured.algorithm().configName() + " at limit " + limit
                + " without leases) denies admission " + admission + " of client c" + admission.client() + " epoch "
                + admission.epoch() + ": " + decision;
    }

    /** The client's state in one place now: its permits counted (fixed-window, sliding-log), else remaining at {@code limit}. */
    long state(int client, int epoch, long limit) {
        if (counting()) {
            return COUNTING_LIMIT - limiter(COUNTING_LIMIT).peek(key(client, epoch)).remaining();
        }
        return limiter(limit).peek(key(client, epoch)).remaining();
    }

    boolean counts() {
        return counting();
    }
}
