package dev.ratelimit;

import dev.ratelimit.internal.claim.ConcurrencyLease;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.engine.DecisionListener;
import dev.ratelimit.internal.engine.EngineBuilder;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;

/** Collects a limiter's policy and rules; {@link #build()} checks them together. */
public final class RateLimiterBuilder {
    static {
        // The door through which the engine and the scripts attach to, and read from, a Decision
        // what it holds; installed here, by the API's entry point, so Decision names nothing above it.
        DecisionAccess.install(new DecisionAccess() {
            @Override
            public Decision admission(Rule rule, long remaining, Duration delay, Duration resetAfter, Receipt receipt) {
                return new Decision(true, rule, Math.max(0, remaining), Duration.ZERO, resetAfter, false, false, receipt,
                        null, Decision.NO_PENALTY, delay);
            }

            @Override
            public Decision penaltyDenial(Rule rule, long remaining, Duration retryAfter, Duration resetAfter,
                    boolean opens) {
                return new Decision(false, rule, Math.max(0, remaining), retryAfter, resetAfter, false, false, null, null,
                        opens ? Decision.OPENS_PENALTY : Decision.IN_PENALTY, Duration.ZERO);
            }

            @Override
            public boolean opensPenalty(Decision decision) {
                return decision.penalty() == Decision.OPENS_PENALTY;
            }

            @Override
            public Receipt receipt(Decision decision) {
                return decision.receipt();
            }

            @Override
            public Decision withLease(Decision decision, ConcurrencyLease lease) {
                return decision.withLease(lease);
            }

            @Override
            public ConcurrencyLease lease(Decision decision) {
                return decision.lease();
            }
        });
    }

    private final EngineBuilder settings;
    private final List<RateLimitListener> listeners = new ArrayList<>();

    RateLimiterBuilder(RedisStore store) {
        Objects.requireNonNull(store, "store");
        settings = new EngineBuilder(store.gateway(), store.evictions(), store);
        settings.keyPrefix = RateLimiter.DEFAULT_KEY_PREFIX;
    }

    /**
     * The policy's name, part of every Redis key and shown in headers; {@code default} unless
     * set. Printable ASCII without blanks or braces, at most 64 characters.
     */
    public RateLimiterBuilder policyName(String policyName) {
        settings.policyName = policyName;
        return this;
    }

    /** Prefix of every Redis key; {@value RateLimiter#DEFAULT_KEY_PREFIX} unless set. May be empty. */
    public RateLimiterBuilder keyPrefix(String keyPrefix) {
        settings.keyPrefix = keyPrefix;
        return this;
    }

    /** Adds a rule. A limiter needs at least one; all of one algorithm. */
    public RateLimiterBuilder rule(Rule rule) {
        settings.rules.add(Objects.requireNonNull(rule, "rule"));
        return this;
    }

    /** Adds rules. */
    public RateLimiterBuilder rules(List<Rule> rules) {
        rules.forEach(this::rule);
        return this;
    }

    /** {@link Transport#LUA} unless set. */
    public RateLimiterBuilder transport(Transport transport) {
        settings.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /**
     * Lowers the limits while the JVM is busy or slow (see {@link AdaptiveLimit} for the rule). Not for
     * {@code token-bucket} and {@code leaky-bucket}, whose stored tokens are counted in units of the configured rate.
     */
    public RateLimiterBuilder adaptive(AdaptiveLimit adaptive) {
        settings.adaptive = adaptive;
        settings.load = adaptive == null ? null : adaptive.load();
        return this;
    }

    /** For tests: the monotonic clock of adaptation, the deny cache and the local limiter; else the store's. */
    RateLimiterBuilder clock(LongSupplier nanoClock) {
        settings.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /** For tests: the wall clock, in epoch milliseconds, of {@link RateLimiter#recentActivity()}; else the store's. */
    RateLimiterBuilder wallClock(LongSupplier millisClock) {
        settings.wallClock = Objects.requireNonNull(millisClock, "millisClock");
        return this;
    }

    /**
     * Adds a listener that hears every decision and failure; {@link RateLimitListener#onBuilt} hands
     * it the limiter once built.
     */
    public RateLimiterBuilder listener(RateLimitListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Whether denials are remembered in the JVM until their retry-after (default true): a
     * client that keeps knocking then costs no Redis call until it could get in. It never denies
     * what Redis would admit, except after a {@link RateLimiter#reset} made on another node.
     */
    public RateLimiterBuilder localDenyCache(boolean localDenyCache) {
        settings.denyCache = localDenyCache;
        return this;
    }

    /**
     * Whether a client that keeps coming back far from its limit is lent permits ahead of use (default false): the
     * decision that admits it also takes up to a quarter of what is left for this node, in the same script call, and
     * this node admits the client's next requests from that lease without a round trip, for at most a tenth of the
     * window and a second. Redis counts leased permits at once, so no node ever admits more than the limit; what a node
     * does not use goes back with its next round trip, or with {@link RateLimiter#giveBackLeases()}. Near the limit no
     * lease is taken and every decision goes to Redis; a denial always does. For one rule of {@code fixed-window},
     * {@code sliding-log}, {@code token-bucket} or {@code gcra} over transport {@code lua}, without adaptive limits
     * (refused at {@link #build()} otherwise).
     */
    public RateLimiterBuilder leases(boolean quotaLeases) {
        settings.quotaLeases = quotaLeases;
        return this;
    }

    /**
     * What to answer when Redis cannot be asked. Unless set, calls throw {@link RedisFailureException}; when set, they
     * return a {@link Decision#degraded()} decision and log the failure at most once every few seconds. With
     * {@link FailurePolicy#LOCAL} that decision is this node's own, at {@link #localLimit(long)}.
     */
    public RateLimiterBuilder onRedisFailure(FailurePolicy failurePolicy) {
        settings.failurePolicy = failurePolicy;
        return this;
    }

    /**
     * With {@link FailurePolicy#LOCAL}: the first rule's limit on each node while Redis cannot be
     * asked; the first rule's {@code limit} unless set. Every rule's limit, and the buckets'
     * {@code burst}, is scaled by {@code localLimit / limit} (rounded down, at least 1), so a
     * single rule runs at exactly this limit. Between 1 and {@link Rule#MAX_LIMIT}.
     */
    public RateLimiterBuilder localLimit(long localLimit) {
        settings.localLimit = localLimit;
        return this;
    }

    /**
     * Whether {@link #build()} readies Redis for the limiter's first decisions (off unless set; the servlet filter and
     * JAX-RS turn it on). Without it the first decisions open the pooled connections and load the scripts themselves,
     * and on a busy machine the calls queued behind them can wait past the pool wait: the failure policy then decides
     * those, so the first burst after a start is partly not limited. With it, {@code build()} opens the connections a
     * burst uses at once (3 per node with coalescing, else the pool's size) on each node that serves keys, checks each
     * with PING, loads the limiter's scripts, and reads the live overrides.
     *
     * <p>It never fails the build and never takes long: it stops at the first failure (the limiter is built, and the
     * failure policy answers until Redis does), and after twice the store's timeout it starts no further step. It logs
     * one line: INFO what it readied, or WARN {@code [REDIS_NOT_READY]} with the failure. A store from
     * {@link RedisStore#wrap} has nothing to ready.
     */
    public RateLimiterBuilder warmUp(boolean warmUp) {
        settings.warmUp = warmUp;
        return this;
    }

    /**
     * @throws IllegalArgumentException if the names are bad, there is no rule, rule names
     *     repeat, the rules mix algorithms, the transport cannot run the rules, or
     *     {@code localLimit} is out of range or set without {@link FailurePolicy#LOCAL}
     */
    public RateLimiter build() {
        settings.listener = listener();
        RateLimiter limiter = new RateLimiter(settings.build());
        for (RateLimitListener listener : listeners) {
            listener.onBuilt(limiter);
        }
        return limiter;
    }

    /** The listeners as the engine hears them: each called in turn, a failing one logged and passed over. */
    DecisionListener listener() {
        if (listeners.isEmpty()) {
            return DecisionListener.NONE;
        }
        List<RateLimitListener> each = new ArrayList<>(listeners);
        String policy = settings.policyName;
        return new DecisionListener() {
            @Override
            public void decided(String key, Decision decision, boolean cachedDenial) {
                for (RateLimitListener listener : each) {
                    try {
                        listener.onDecision(policy, key, decision, cachedDenial);
                        if (decision.allowed()) {
                            listener.onAllowed(policy, key, decision);
                        } else {
                            listener.onDenied(policy, key, decision);
                        }
                    } catch (RuntimeException e) {
                        failed(listener, e);
                    }
                }
            }

            @Override
            public void redisLatency(long nanos) {
                for (RateLimitListener listener : each) {
                    try {
                        listener.onRedisLatency(policy, nanos);
                    } catch (RuntimeException e) {
                        failed(listener, e);
                    }
                }
            }

            @Override
            public void redisFailed(String key, RedisFailureException failure) {
                for (RateLimitListener listener : each) {
                    try {
                        listener.onFailure(policy, key, failure);
                    } catch (RuntimeException e) {
                        failed(listener, e);
                    }
                }
            }

            private void failed(RateLimitListener listener, RuntimeException e) {
                LoggerFactory.getLogger(RateLimiter.class).warn("Rate limit listener {} failed on policy '{}'",
                        listener, policy, e);
            }
        };
    }
}
