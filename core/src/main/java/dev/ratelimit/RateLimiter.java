package dev.ratelimit;

import dev.ratelimit.internal.Evaluator;
import dev.ratelimit.internal.LatencySamples;
import dev.ratelimit.internal.LocalDenyCache;
import dev.ratelimit.internal.LuaEvaluator;
import dev.ratelimit.internal.RedisGateway;
import dev.ratelimit.internal.RedisKeys;
import dev.ratelimit.internal.StoreAccess;
import dev.ratelimit.internal.TransactionEvaluator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a client may go ahead, against state kept in Redis, so that every application
 * node sharing the Redis enforces one limit. Each decision is one round trip and atomic in Redis:
 * limiters on many nodes and threads never admit more than the rules allow.
 *
 * <p>Several rules (say 10 per second and 1000 per hour) are decided together, all or nothing: a
 * denial by one rule consumes nothing from the others. Thread-safe; build one per policy and keep
 * it.
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
    public static final int MAX_NAME_LENGTH = 64;
    /** The most denials one limiter remembers in the JVM. */
    public static final int LOCAL_DENY_CACHE_SIZE = 10_000;
    /** What a degraded denial tells the client to wait. */
    public static final Duration DEGRADED_RETRY_AFTER = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);
    private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long ADAPTATION_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String policyName;
    private final String keyPrefix;
    private final List<Rule> rules;
    private final Transport transport;
    /** The rules in force with their evaluator; replaced whole (rarely) when adaptive limits change them. */
    private volatile Applied applied;
    private final RedisGateway gateway;
    private final AdaptiveLimit adaptive;
    private final LongSupplier nanoClock;
    private final AtomicLong nextAdaptation;
    private final LatencySamples admittedLatency = new LatencySamples(1024);
    private final FailurePolicy failurePolicy;
    private final LocalDenyCache denyCache;
    private final List<RateLimitListener> listeners;
    private final AtomicLong allowed = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private final AtomicLong degraded = new AtomicLong();
    private final AtomicLong localCacheDenials = new AtomicLong();
    private final LatencySamples redisLatency = new LatencySamples(1024);
    private final AtomicLong redisFailures = new AtomicLong();
    /** When a failure was last logged, so that a dead Redis makes one line per interval, not one per request. */
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - FAILURE_LOG_INTERVAL_NANOS);

    /** The rules in force, the evaluator that decides them and each rule's cost, as one value. */
    private static final class Applied {
        final List<Rule> rules;
        final Evaluator evaluator;
        final long[] costs;
        final double factor;

        Applied(List<Rule> rules, Transport transport, RedisGateway gateway, double factor) {
            this.rules = List.copyOf(rules);
            this.evaluator = transport == Transport.LUA ? new LuaEvaluator(gateway, rules)
                    : new TransactionEvaluator(gateway, rules);
            this.costs = rules.stream().mapToLong(Rule::cost).toArray();
            this.factor = factor;
        }

        /** The same rules under a new factor: nothing to rebuild. */
        Applied withFactor(double newFactor) {
            return new Applied(this, newFactor);
        }

        private Applied(Applied same, double factor) {
            this.rules = same.rules;
            this.evaluator = same.evaluator;
            this.costs = same.costs;
            this.factor = factor;
        }
    }

    private RateLimiter(Builder builder) {
        this.policyName = builder.policyName;
        this.keyPrefix = builder.keyPrefix;
        this.rules = List.copyOf(builder.rules);
        this.transport = builder.transport;
        this.gateway = StoreAccess.gateway(builder.store);
        this.applied = new Applied(rules, transport, gateway, 1);
        this.failurePolicy = builder.failurePolicy;
        this.denyCache = builder.localDenyCache ? new LocalDenyCache(LOCAL_DENY_CACHE_SIZE, builder.nanoClock) : null;
        this.listeners = List.copyOf(builder.listeners);
        this.adaptive = builder.adaptive;
        this.nanoClock = builder.nanoClock;
        this.nextAdaptation = new AtomicLong(nanoClock.getAsLong());
    }

    /** Starts a limiter that keeps its state in the given Redis. */
    public static Builder builder(RedisStore store) {
        return new Builder(store);
    }

    /**
     * Takes each rule's {@link Rule#cost() cost} in permits if every rule allows it.
     *
     * @param key the client: an address, a user, an API key; long or unusual keys are digested
     * @throws IllegalArgumentException if the key is null or empty
     * @throws RedisFailureException if Redis cannot be asked and no failure policy is set
     */
    public Decision tryAcquire(String key) {
        return acquireOnce(key, keys(key), 0);
    }

    /**
     * Takes {@code permits} from every rule if every rule allows it; otherwise takes nothing.
     *
     * @throws IllegalArgumentException if the key is null or empty, or permits is below 1 or above a
     *     rule's capacity (such a request could never be allowed)
     * @throws RedisFailureException if Redis cannot be asked
     */
    public Decision tryAcquire(String key, long permits) {
        checkPermits(permits);
        return acquireOnce(key, keys(key), permits);
    }

    /**
     * Takes the permits, waiting for them if need be: sleeps for each denial's retry-after and
     * tries again, and gives up (returning the denial) as soon as the next wait would end past
     * {@code maxWait}. Never busy-polls. For callers that throttle their own outbound calls; a
     * server answering requests should rather deny at once with {@link #tryAcquire(String, long)}.
     *
     * @return the allowing decision, or the last denial when waiting longer would pass maxWait
     * @throws IllegalArgumentException for a bad key or permits (as tryAcquire) or a negative maxWait
     * @throws InterruptedException if the thread is interrupted while waiting; nothing was taken
     * @throws RedisFailureException if Redis cannot be asked
     */
    public Decision acquire(String key, long permits, Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be zero or positive, but was " + maxWait);
        }
        List<String> keys = keys(key);
        checkPermits(permits);
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Decision decision = acquireOnce(key, keys, permits);
            if (decision.allowed() || decision.degraded()) {
                return decision;
            }
            // At least 1 ms, so that even a rounding quirk can never turn this into a spin.
            long wait = Math.max(TimeUnit.MILLISECONDS.toNanos(1), decision.retryAfter().toNanos());
            if (wait > deadline - System.nanoTime()) {
                return decision;
            }
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /**
     * The client's state without taking anything: would a request of each rule's cost be allowed,
     * and how many permits remain.
     *
     * @throws IllegalArgumentException if the key is null or empty
     * @throws RedisFailureException if Redis cannot be asked
     */
    public Decision peek(String key) {
        List<String> keys = keys(key);
        Applied current = applied;
        return decide(current, key, keys, current.costs, false);
    }

    /**
     * Forgets the client: its next request finds every rule at full capacity.
     *
     * @throws IllegalArgumentException if the key is null or empty
     * @throws RedisFailureException if Redis cannot be asked
     */
    public void reset(String key) {
        gateway.delete(keys(key));
        if (denyCache != null) {
            denyCache.forget(key + '\n');
        }
    }

    /** Redis failures met so far (each one decided by the failure policy or thrown). */
    public long redisFailures() {
        return redisFailures.get();
    }

    /** The counts so far and the latency of recent Redis calls. */
    public RateLimiterStats stats() {
        return new RateLimiterStats(allowed.get(), denied.get(), degraded.get(), localCacheDenials.get(),
                redisFailures.get(), redisLatency.percentileMicros(0.50), redisLatency.percentileMicros(0.99),
                gateway.circuitState());
    }

    /** The failure policy, or null when failures are thrown. */
    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    /**
     * One try, answered from the local deny cache when it remembers a denial for this client and
     * cost that has not yet run out.
     *
     * @param permits the caller's permits, or 0 for each rule's cost
     */
    private Decision acquireOnce(String key, List<String> keys, long permits) {
        adapt();
        Applied current = applied;
        long[] eachRule = permits == 0 ? current.costs : permitsForEachRule(current, permits);
        Decision decision;
        if (denyCache == null) {
            decision = decide(current, key, keys, eachRule, true);
        } else {
            String cacheKey = key + '\n' + permits;
            decision = denyCache.get(cacheKey);
            if (decision != null) {
                localCacheDenials.incrementAndGet();
            } else {
                decision = decide(current, key, keys, eachRule, true);
                denyCache.put(cacheKey, decision);
            }
        }
        count(key, decision);
        return decision;
    }

    /**
     * With adaptive limits, recomputes the factor at most once per second and, when the effective
     * limits change, swaps in an evaluator for the scaled rules (same names, so the same keys).
     */
    private void adapt() {
        if (adaptive == null) {
            return;
        }
        long now = nanoClock.getAsLong();
        long due = nextAdaptation.get();
        if (now - due < 0 || !nextAdaptation.compareAndSet(due, now + ADAPTATION_INTERVAL_NANOS)) {
            return;
        }
        double factor = adaptive.factor(adaptive.load().cpuLoad(), admittedLatency.percentileMicros(0.90));
        List<Rule> scaled = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            scaled.add(scale(rule, factor));
        }
        if (scaled.equals(applied.rules)) {
            applied = applied.withFactor(factor);
        } else {
            log.info("Rate limit policy '{}' adapts its limits by {}: {}", policyName,
                    String.format(java.util.Locale.ROOT, "%.2f", factor), scaled);
            applied = new Applied(scaled, transport, gateway, factor);
        }
    }

    private Rule scale(Rule rule, double factor) {
        long limit = adaptive.effectiveLimit(rule.limit(), factor);
        Rule.Builder builder = Rule.builder(rule.algorithm(), limit, rule.window()).name(rule.name());
        long capacity = limit;
        if (rule.algorithm().usesBurst()) {
            capacity = adaptive.effectiveLimit(rule.burst(), factor);
            builder.burst(capacity);
        }
        return builder.cost(Math.min(rule.cost(), capacity)).build();
    }

    /**
     * Tells adaptive limits how long an admitted request took to serve; the HTTP adapters call it.
     * Without adaptive limits it does nothing worth the call.
     */
    public void recordAdmittedLatency(Duration latency) {
        if (adaptive != null) {
            admittedLatency.record(latency.toNanos());
        }
    }

    /** The rules as they apply now: the configured ones, or scaled by adaptive limits. */
    public List<Rule> effectiveRules() {
        return applied.rules;
    }

    /** The adaptive factor last computed (1 without adaptive limits). */
    public double adaptiveFactor() {
        return applied.factor;
    }

    /** Counts a handed-out decision and tells the listeners. */
    private void count(String key, Decision decision) {
        (decision.allowed() ? allowed : denied).incrementAndGet();
        if (decision.degraded()) {
            degraded.incrementAndGet();
        }
        for (RateLimitListener listener : listeners) {
            try {
                if (decision.allowed()) {
                    listener.onAllowed(policyName, key, decision);
                } else {
                    listener.onDenied(policyName, key, decision);
                }
            } catch (RuntimeException e) {
                log.warn("Rate limit listener {} failed on policy '{}'", listener, policyName, e);
            }
        }
    }

    private Decision decide(Applied current, String key, List<String> keys, long[] permits, boolean consume) {
        long start = System.nanoTime();
        try {
            Decision decision = current.evaluator.decide(keys, permits, consume);
            redisLatency.record(System.nanoTime() - start);
            return decision;
        } catch (RedisFailureException e) {
            redisFailures.incrementAndGet();
            for (RateLimitListener listener : listeners) {
                try {
                    listener.onFailure(policyName, key, e);
                } catch (RuntimeException listenerFailure) {
                    log.warn("Rate limit listener {} failed on policy '{}'", listener, policyName, listenerFailure);
                }
            }
            if (failurePolicy == null) {
                throw e;
            }
            logFailure(e);
            return Decision.degraded(failurePolicy == FailurePolicy.ALLOW, rules.get(0), DEGRADED_RETRY_AFTER);
        }
    }

    private void logFailure(RedisFailureException e) {
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (now - last >= FAILURE_LOG_INTERVAL_NANOS && lastFailureLog.compareAndSet(last, now)) {
            log.warn("Rate limit policy '{}' cannot reach Redis; onRedisFailure={} decides (failures so far: {}): {}",
                    policyName, failurePolicy, redisFailures.get(), e.getMessage());
        }
    }

    /** The name in Redis keys and headers. */
    public String policyName() {
        return policyName;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public List<Rule> rules() {
        return rules;
    }

    public Transport transport() {
        return transport;
    }

    /**
     * The Redis key(s) of a client: {@code <keyPrefix><policyName>:{<clientKey>}}, with
     * {@code :<rule name>} after it for each rule when there are several.
     */
    public List<String> redisKeys(String key) {
        return keys(key);
    }

    private List<String> keys(String key) {
        String base = RedisKeys.key(keyPrefix, policyName, RedisKeys.checkClientKey("key", key));
        if (rules.size() == 1) {
            return List.of(base);
        }
        List<String> keys = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            keys.add(base + ':' + rule.name());
        }
        return keys;
    }

    /** Permits are checked against the configured rules: a request no rule could ever allow is a caller's bug. */
    private void checkPermits(long permits) {
        for (Rule rule : rules) {
            if (permits < 1 || permits > rule.capacity()) {
                throw new IllegalArgumentException("permits must be between 1 and " + rule.capacity()
                        + " (the capacity of rule " + rule.name() + "), but was " + permits);
            }
        }
    }

    private static long[] permitsForEachRule(Applied current, long permits) {
        long[] eachRule = new long[current.rules.size()];
        java.util.Arrays.fill(eachRule, permits);
        return eachRule;
    }

    @Override
    public String toString() {
        return "RateLimiter(" + policyName + ", " + rules + ", " + transport + ")";
    }

    /** Collects a limiter's policy and rules; {@link #build()} checks them together. */
    public static final class Builder {
        private final RedisStore store;
        private String policyName = "default";
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private final List<Rule> rules = new ArrayList<>();
        private Transport transport = Transport.LUA;
        private FailurePolicy failurePolicy;
        private boolean localDenyCache = true;
        private final List<RateLimitListener> listeners = new ArrayList<>();
        private AdaptiveLimit adaptive;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder(RedisStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * The policy's name, part of every Redis key and shown in headers; {@code default} unless
         * set. Printable ASCII without blanks or braces, at most 64 characters.
         */
        public Builder policyName(String policyName) {
            this.policyName = policyName;
            return this;
        }

        /** Prefix of every Redis key; {@value RateLimiter#DEFAULT_KEY_PREFIX} unless set. May be empty. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Adds a rule. A limiter needs at least one; all of one algorithm. */
        public Builder rule(Rule rule) {
            rules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** Adds rules. */
        public Builder rules(List<Rule> rules) {
            rules.forEach(this::rule);
            return this;
        }

        /** {@link Transport#LUA} unless set. */
        public Builder transport(Transport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * Lowers the limits while the JVM is busy or slow (see {@link AdaptiveLimit} for the rule).
         * Not for {@code token-bucket} and {@code leaky-bucket}, whose stored tokens are counted
         * in units of the configured rate.
         */
        public Builder adaptive(AdaptiveLimit adaptive) {
            this.adaptive = adaptive;
            return this;
        }

        /**
         * The monotonic clock that times adaptation (at most once per second) and the local deny
         * cache's entries, so that one manual clock drives both; for tests.
         */
        Builder clock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /** Adds a listener that hears every decision and failure. */
        public Builder listener(RateLimitListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Whether denials are remembered in the JVM until their retry-after (default true): a
         * client that keeps knocking then costs no Redis call until it could get in. It never denies
         * what Redis would admit, except after a {@link #reset} made on another node.
         */
        public Builder localDenyCache(boolean localDenyCache) {
            this.localDenyCache = localDenyCache;
            return this;
        }

        /**
         * What to answer when Redis cannot be asked. Unless set, calls throw
         * {@link RedisFailureException}; when set, they return a {@link Decision#degraded()}
         * decision and log the failure at most once every few seconds.
         */
        public Builder onRedisFailure(FailurePolicy failurePolicy) {
            this.failurePolicy = failurePolicy;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the names are bad, there is no rule, rule names
         *     repeat, the rules mix algorithms, or the transport cannot run the rules
         */
        public RateLimiter build() {
            RedisKeys.checkKeyPart("policyName", policyName, 1, MAX_NAME_LENGTH);
            RedisKeys.checkKeyPart("keyPrefix", keyPrefix, 0, MAX_NAME_LENGTH);
            if (rules.isEmpty()) {
                throw new IllegalArgumentException("rules must hold at least one rule, but was empty");
            }
            Set<String> names = new HashSet<>();
            for (Rule rule : rules) {
                if (!names.add(rule.name())) {
                    throw new IllegalArgumentException("rule names must differ within a limiter, but '"
                            + rule.name() + "' appears twice in " + rules);
                }
                if (rule.algorithm() != rules.get(0).algorithm()) {
                    throw new IllegalArgumentException("rules of one limiter must share one algorithm (one script "
                            + "decides them all at once), but were " + rules);
                }
            }
            if (adaptive != null) {
                AdaptiveLimit.checkApplies(rules);
            }
            if (transport == Transport.TRANSACTION && !StoreAccess.gateway(store).supportsTransactions()) {
                throw new IllegalArgumentException("transport 'transaction' is not available on Redis Cluster (its "
                        + "client runs no MULTI/EXEC), but was chosen for " + store + "; use transport 'lua'");
            }
            return new RateLimiter(this);
        }
    }
}
