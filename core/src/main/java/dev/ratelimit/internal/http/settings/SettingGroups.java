package dev.ratelimit.internal.http.settings;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.internal.http.client.CustomKeyResolver;
import dev.ratelimit.internal.http.client.KeySpec;
import dev.ratelimit.internal.http.client.Tiers;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.rules.ChargeRules;
import dev.ratelimit.internal.rules.DelayRules;
import dev.ratelimit.internal.support.Immutable;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * The settings an {@link HttpPolicy} reads together, each group into one value and checked against
 * each other: the rule (limit, window, algorithm, burst, cost, calendar), Redis, {@code limits},
 * {@code tiers}, {@code countStatus}, {@code maxDelay}, {@code chargeAfter} and the key resolver; how the
 * limiters decide is {@link PolicyLimiters}'. Where each value comes from, and its name in messages, is PolicyReader's.
 */
final class SettingGroups {
    private final PolicyReader in;

    SettingGroups(PolicyReader in) {
        this.in = in;
    }

    /** The Redis connection: {@code redisUri} with timeout and pool, through Sentinel or Cluster if set. */
    RedisSettings redisSettings() {
        RedisSettings.Builder builder = RedisSettings.builder(in.get(Settings.REDIS_URI))
                .timeout(in.get(Settings.REDIS_TIMEOUT))
                .poolSize(Math.toIntExact(in.get(Settings.REDIS_POOL_SIZE)))
                .circuitBreaker(Math.toIntExact(in.get(Settings.REDIS_BREAKER_FAILURES)),
                        in.get(Settings.REDIS_BREAKER_COOL_DOWN))
                .coalescing(in.get(Settings.REDIS_COALESCING));
        String sentinelMaster = in.get(Settings.REDIS_SENTINEL_MASTER);
        List<String> sentinelNodes = in.get(Settings.REDIS_SENTINEL_NODES);
        if (sentinelMaster != null || sentinelNodes != null) {
            builder.sentinel(sentinelMaster, sentinelNodes == null ? Immutable.listOf() : sentinelNodes);
        }
        List<String> clusterNodes = in.get(Settings.REDIS_CLUSTER_NODES);
        if (clusterNodes != null) {
            builder.cluster(clusterNodes);
        }
        return builder.build();
    }

    /**
     * {@code maxDelay} and {@code maxDelayed}, or null without maxDelay. Refused where the limiter
     * cannot reserve ({@link DelayRules}), and with {@code limits} (one decision per dimension).
     */
    Waiting waiting(boolean dimensions, List<Rule> rules, Transport transport, boolean leases) {
        Duration maxDelay = in.get(Settings.MAX_DELAY);
        if (maxDelay == null) {
            if (in.ownValue(Settings.MAX_DELAYED)) {
                throw new IllegalArgumentException(in.label(Settings.MAX_DELAYED) + " applies only with "
                        + in.label(Settings.MAX_DELAY) + ", which is off (maxDelayed was '"
                        + in.text(Settings.MAX_DELAYED) + "')");
            }
            return null;
        }
        String refusal = dimensions ? Settings.LIMITS.name() + ": each dimension is decided apart, and their turns "
                + "come at different instants" : DelayRules.refusal(rules, transport, leases);
        if (refusal != null) {
            throw new IllegalArgumentException(in.label(Settings.MAX_DELAY) + " ('" + in.text(Settings.MAX_DELAY)
                    + "') cannot be combined with " + refusal);
        }
        return new Waiting(maxDelay, Math.toIntExact(in.get(Settings.MAX_DELAYED)));
    }

    /**
     * The rule: {@code algorithm}, {@code limit} per {@code window}, {@code burst}, {@code cost}; or {@code limit} per
     * {@code calendar} period in {@code timeZone}, which excludes {@code window} and counts as fixed-window.
     */
    Rule rule() {
        ZoneId timeZone = in.get(Settings.TIME_ZONE);
        if (in.text(Settings.CALENDAR) == null && in.ownValue(Settings.TIME_ZONE)) {
            throw new IllegalArgumentException(in.label(Settings.TIME_ZONE) + " applies only with calendar, but "
                    + in.label(Settings.CALENDAR) + " is not set (timeZone was '" + in.text(Settings.TIME_ZONE) + "')");
        }
        Rule.Builder builder = in.text(Settings.CALENDAR) != null ? calendarRule(timeZone)
                : Rule.builder(in.get(Settings.ALGORITHM), in.required(Settings.LIMIT), in.required(Settings.WINDOW));
        builder.cost(in.get(Settings.COST)).penalty(in.get(Settings.PENALTY));
        Long burst = in.get(Settings.BURST);
        if (burst != null) {
            builder.burst(burst);
        }
        return builder.build();
    }

    private Rule.Builder calendarRule(ZoneId timeZone) {
        CalendarPeriod period = in.get(Settings.CALENDAR);
        if (in.text(Settings.WINDOW) != null) {
            throw new IllegalArgumentException(in.label(Settings.WINDOW) + " and " + in.label(Settings.CALENDAR)
                    + " exclude each other, but both were set: '" + in.text(Settings.WINDOW) + "' and '" + period
                    + "'; keep one");
        }
        Algorithm algorithm = in.get(Settings.ALGORITHM);
        if (in.text(Settings.ALGORITHM) != null && algorithm != Algorithm.FIXED_WINDOW) {
            throw new IllegalArgumentException(in.label(Settings.CALENDAR) + " counts as fixed-window, but "
                    + in.label(Settings.ALGORITHM) + " is '" + algorithm + "'; leave algorithm out");
        }
        return Rule.calendar(in.required(Settings.LIMIT), period, timeZone);
    }

    /**
     * {@code limits}: several dimensions, or null when not set. It replaces {@code limit},
     * {@code window} and {@code key}, which must then not be set, and takes {@code algorithm},
     * {@code burst} and {@code cost} for every entry.
     */
    Dimensions dimensions(TrustedProxies proxies) {
        String limits = in.text(Settings.LIMITS);
        if (limits == null) {
            return null;
        }
        for (Setting<?> excluded : Immutable.listOf(Settings.LIMIT, Settings.WINDOW, Settings.CALENDAR, Settings.KEY,
                Settings.KEY_RESOLVER_CLASS, Settings.TIERS, Settings.TIER_FROM, Settings.COUNT_STATUS)) {
            if (in.ownValue(excluded)) {
                throw new IllegalArgumentException(in.label(Settings.LIMITS) + " and " + in.label(excluded)
                        + " exclude each other, but both were set: '" + limits + "' and '" + in.text(excluded)
                        + "'; keep " + Settings.LIMITS.name());
            }
        }
        if (in.get(Settings.PENALTY) != null) {
            // Refused, not ignored: the box sits beside one client's key, and each dimension has a client of its own.
            throw new IllegalArgumentException(in.label(Settings.PENALTY) + " ('" + in.text(Settings.PENALTY) + "') cannot be "
                    + "combined with " + in.label(Settings.LIMITS) + ": a penalty box belongs to one client key, and each "
                    + "dimension has its own; use one policy per dimension for a penalty");
        }
        if (in.get(Settings.ON_REDIS_FAILURE) == FailurePolicy.LOCAL) {
            throw new IllegalArgumentException(in.label(Settings.ON_REDIS_FAILURE) + " is 'local', which limits one "
                    + "client per request, but " + in.label(Settings.LIMITS) + " decides one per dimension; use allow "
                    + "or deny");
        }
        return Dimensions.parse(limits, in.get(Settings.ALGORITHM), in.get(Settings.BURST), in.get(Settings.COST), proxies);
    }

    /**
     * {@code countStatus}, or null when every answer counts. Refused with {@code concurrency}: its
     * lease is given back when any request ends, whatever its status.
     */
    StatusMatcher countStatus(Rule rule) {
        StatusMatcher countStatus = in.get(Settings.COUNT_STATUS);
        if (countStatus != null && rule.algorithm().holdsLeases()) {
            throw new IllegalArgumentException(in.label(Settings.COUNT_STATUS) + " counts finished requests, but "
                    + in.label(Settings.ALGORITHM) + " is 'concurrency', which counts requests in flight (countStatus "
                    + "was '" + in.text(Settings.COUNT_STATUS) + "')");
        }
        return countStatus;
    }

    /** {@code chargeAfter}, refused where a debt cannot be kept exactly ({@link ChargeRules}). */
    boolean chargeAfter(List<Rule> rules, Transport transport, boolean leases) {
        boolean chargeAfter = in.get(Settings.CHARGE_AFTER);
        if (chargeAfter) {
            ChargeRules.check(rules, transport, leases);
        }
        return chargeAfter;
    }

    /** {@code tiers} with {@code tierFrom}: each needs the other. */
    Tiers tiers() {
        String tiers = in.text(Settings.TIERS);
        String from = in.text(Settings.TIER_FROM);
        if (tiers == null && from == null) {
            return Tiers.NONE;
        }
        if (tiers == null || from == null) {
            Setting<?> given = tiers == null ? Settings.TIER_FROM : Settings.TIERS;
            Setting<?> missing = tiers == null ? Settings.TIERS : Settings.TIER_FROM;
            throw new IllegalArgumentException(in.label(given) + " needs " + in.label(missing) + ", which is not set ("
                    + given.name() + " was '" + in.text(given) + "')");
        }
        return Tiers.parse(tiers, from);
    }

    /** The client key: {@code keyResolverClass} if set, else {@code key} over {@code trustedProxies}. */
    KeyResolver keyResolver(TrustedProxies proxies) {
        String resolverClass = in.get(Settings.KEY_RESOLVER_CLASS);
        if (resolverClass == null) {
            return KeySpec.parse(in.get(Settings.KEY), proxies);
        }
        if (in.ownValue(Settings.KEY)) {
            throw new IllegalArgumentException(in.label(Settings.KEY) + " and " + in.label(Settings.KEY_RESOLVER_CLASS)
                    + " exclude each other, but both were set: '" + in.text(Settings.KEY) + "' and '"
                    + resolverClass + "'; keep one");
        }
        return CustomKeyResolver.load(resolverClass, in.classLoader());
    }
}
