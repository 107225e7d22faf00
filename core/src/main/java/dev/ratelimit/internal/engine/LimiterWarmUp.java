package dev.ratelimit.internal.engine;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.WarmUp;
import dev.ratelimit.internal.scripts.Evaluator;
import java.util.concurrent.TimeUnit;

/**
 * Readies Redis for a limiter's first decisions, when it is built to ({@code warmUp(true)}; the
 * filter and JAX-RS do): the gateway opens and checks the connections a burst uses and loads the
 * limiter's scripts ({@link RedisGateway#warmUp}), then the live overrides are read, the round trip
 * the first decision would otherwise make before its own, and one that takes the decision's way
 * through the gateway (coalescer, breaker, pool, EVALSHA), so its code is loaded too. A decision is
 * not made: it would be counted, and a peek was measured to save the first burst nothing more.
 *
 * <p>Never throws for Redis and never blocks a start for long: the gateway stops at the first
 * failure and within a few timeouts. One line tells the outcome: INFO what was readied, or WARN
 * {@code [REDIS_NOT_READY]} with the failure and what answers the requests until Redis does.
 */
final class LimiterWarmUp {
    private LimiterWarmUp() {
    }

    /** Whether Redis answered (true too when the gateway has nothing of its own to ready). */
    static boolean run(String policyName, RedisGateway gateway, Evaluator evaluator, LiveOverrides overrides,
            FailurePolicy failurePolicy) {
        long start = System.nanoTime();
        WarmUp ready;
        try {
            ready = gateway.warmUp(evaluator.scripts());
        } catch (RuntimeException e) {
            // Not Redis' answer but something unforeseen (the gateway turns Redis' failures into its
            // result): it is told, and the start goes on, as a warm-up must never stop one.
            ready = WarmUp.of(0, 0, 0, 0, "the warm-up failed: " + e, System.nanoTime() - start);
        }
        if (!ready.done()) {
            return true;
        }
        if (ready.failure() != null) {
            LimiterLog.LOG.warn("Rate limit policy '{}' [REDIS_NOT_READY]: Redis did not answer at start: {}. The policy "
                    + "starts anyway; until Redis answers, {}", policyName, ready.failure(), meanwhile(failurePolicy));
            return false;
        }
        overrides.refreshIfDue();
        LimiterLog.LOG.info("Rate limit policy '{}' is ready for its first requests: Redis at {} answered; {}, {}, in {} ms",
                policyName, gateway, ready.summary(), overrides.readFailing() ? "overrides not read (see above)"
                        : "overrides read", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return true;
    }

    private static String meanwhile(FailurePolicy failurePolicy) {
        return failurePolicy == null ? "its decisions throw RedisFailureException"
                : failurePolicy == FailurePolicy.ALLOW ? "onRedisFailure=allow lets its requests through, unlimited"
                : failurePolicy == FailurePolicy.DENY ? "onRedisFailure=deny refuses its requests"
                : "onRedisFailure=local limits its requests on each node alone";
    }
}
