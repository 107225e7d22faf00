package dev.ratelimit.internal.engine;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.redis.EvictionWatch;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.rules.LocalRules;
import dev.ratelimit.internal.rules.PenaltyRules;
import dev.ratelimit.internal.rules.QuotaLeaseRules;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * A limiter's settings as the API's builder collects them, in public fields it sets directly, and
 * their checks, together in one place ({@link #build}): each message names the setting and its
 * value. The {@link DecisionEngine} then makes its parts from them, once.
 */
public final class EngineBuilder {
    /** The longest policy name and key prefix, so that Redis keys stay bounded. */
    public static final int MAX_NAME_LENGTH = 64;

    final RedisGateway gateway;
    /** The store's watch on its Redis's eviction settings, read now when due, then by decisions. */
    final EvictionWatch evictions;
    /** The store, as messages name it. */
    private final Object store;
    public String policyName = "default";
    public String keyPrefix;
    public final List<Rule> rules = new ArrayList<>();
    public Transport transport = Transport.LUA;
    /** The failure policy; null to throw. */
    public FailurePolicy failurePolicy;
    /** With {@link FailurePolicy#LOCAL}, the first rule's limit on each node alone; null for its limit. */
    public Long localLimit;
    /** Whether to remember denials in the JVM: never with leases of either kind. */
    public boolean denyCache = true;
    /** Whether to lend busy clients quota ahead of use ({@code QuotaLeaseRules}). */
    public boolean quotaLeases;
    /** Null when the configured rules always apply; then {@link #load} is unused. */
    public AdaptiveLimit adaptive;
    public AdaptiveLimit.LoadSource load;
    public DecisionListener listener = DecisionListener.NONE;
    /** The store's clocks unless set: the JVM's, but a test's Redis's (test-only-redis://). */
    public LongSupplier nanoClock;
    public LongSupplier wallClock;
    /** Whether to ready Redis for the first decisions before returning ({@link LimiterWarmUp}). */
    public boolean warmUp;

    /** @param store what the gateway and the watch belong to, as messages name it */
    public EngineBuilder(RedisGateway gateway, EvictionWatch evictions, Object store) {
        this.gateway = gateway;
        this.evictions = evictions;
        this.store = store;
        this.nanoClock = gateway::nanoTime;
        this.wallClock = gateway::currentTimeMillis;
    }

    /**
     * @throws IllegalArgumentException if the names are bad, there is no rule, rule names
     *     repeat, the rules mix algorithms, the transport cannot run the rules, or
     *     {@code localLimit} is out of range or set without {@link FailurePolicy#LOCAL}
     */
    public DecisionEngine build() {
        RedisKeys.checkKeyPart("policyName", policyName, 1, MAX_NAME_LENGTH);
        RedisKeys.checkKeyPart("keyPrefix", keyPrefix, 0, MAX_NAME_LENGTH);
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("rules must hold at least one rule, but was empty");
        }
        Rule first = rules.get(0);
        Set<String> names = new HashSet<>();
        for (Rule rule : rules) {
            if (!names.add(rule.name())) {
                throw new IllegalArgumentException("rule names must differ within a limiter, but '"
                        + rule.name() + "' appears twice in " + rules);
            }
            if (rule.algorithm() != first.algorithm() || (rule.calendar() == null) != (first.calendar() == null)) {
                throw new IllegalArgumentException("rules of one limiter must share one algorithm, and be all "
                        + "calendar rules or none (one script decides them all at once), but were " + rules);
            }
        }
        if (rules.size() > 1 && first.algorithm().holdsLeases()) {
            throw new IllegalArgumentException("rules of algorithm " + first.algorithm() + " must be one per "
                    + "limiter (several limits of requests in flight for one client would only repeat the lowest), "
                    + "but were " + rules + "; use a limiter per client key instead");
        }
        if (transport == Transport.TRANSACTION && first.calendar() != null) {
            throw new IllegalArgumentException("transport 'transaction' counts fixed windows only, but the rules "
                    + "were calendar rules " + rules + "; use transport 'lua'");
        }
        if (quotaLeases) {
            QuotaLeaseRules.check(rules, transport, adaptive);
        }
        PenaltyRules.check(rules, transport, quotaLeases, failurePolicy);
        if (adaptive != null) {
            AdaptiveLimit.checkApplies(rules);
        }
        if (transport == Transport.TRANSACTION && !gateway.supportsTransactions()) {
            throw new IllegalArgumentException("transport 'transaction' is not available on Redis Cluster (its "
                    + "client runs no MULTI/EXEC), but was chosen for " + store + "; use transport 'lua'");
        }
        List<Rule> localRules = null;
        if (failurePolicy == FailurePolicy.LOCAL) {
            localRules = LocalRules.scale(rules, localLimit != null ? localLimit : first.limit());
        } else if (localLimit != null) {
            throw new BadArgument("localLimit", "localLimit applies only with onRedisFailure(FailurePolicy.LOCAL), "
                    + "but was " + localLimit + " with onRedisFailure " + failurePolicy);
        }
        return new DecisionEngine(this, localRules);
    }
}
