package dev.ratelimit.internal.rules;

import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules a node applies alone while Redis cannot be asked ({@code onRedisFailure=local}): read
 * by the builder and, to fail at startup with the setting's name, by the HTTP settings.
 */
public final class LocalRules {
    private LocalRules() {
    }

    /**
     * The rules a node applies alone: each rule's limit (and, for the buckets, its burst) scaled by
     * {@code localLimit / the first rule's limit}, rounded down, at least 1, so that the first rule
     * (an HTTP policy's only one) runs at exactly {@code localLimit}; costs are capped at the new
     * capacity. Algorithm, windows and given names stay. The one check of {@code localLimit}.
     *
     * @throws BadArgument naming {@code localLimit} and its value when it is out of range or makes
     *     a rule that cannot be counted exactly
     */
    public static List<Rule> scale(List<Rule> rules, long localLimit) {
        if (localLimit < 1 || localLimit > Rule.MAX_LIMIT) {
            throw new BadArgument("localLimit", "localLimit must be a whole number between 1 and " + Rule.MAX_LIMIT
                    + ", but was " + localLimit);
        }
        if (rules.get(0).algorithm().holdsLeases()) {
            // A local twin would have to take back, on this node, leases handed out while Redis was
            // down and released after it came back: refused rather than half right.
            throw new BadArgument("onRedisFailure", "onRedisFailure must be allow or deny for algorithm "
                    + rules.get(0).algorithm() + " (requests in flight are counted in Redis alone; a node cannot "
                    + "take back alone the leases it handed out), but was 'local'");
        }
        long base = rules.get(0).limit();
        List<Rule> local = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            long limit = scaled(rule.limit(), localLimit, base);
            // A calendar rule stays one: its local count ends with the period, as Redis' does.
            Rule.Builder builder = rule.calendar() != null ? Rule.calendar(limit, rule.calendar(), rule.timeZone())
                    : Rule.builder(rule.algorithm(), limit, rule.window());
            String defaultName = rule.limit() + "/"
                    + (rule.calendar() != null ? rule.calendar().configName() : Durations.format(rule.window()));
            if (!rule.name().equals(defaultName)) {
                // A name of its own stays; a default one (10/1s) would misstate the local limit.
                builder.name(rule.name());
            }
            long capacity = limit;
            if (rule.algorithm().usesBurst()) {
                capacity = scaled(rule.burst(), localLimit, base);
                builder.burst(capacity);
            }
            try {
                local.add(builder.cost(Math.min(rule.cost(), capacity)).build());
            } catch (IllegalArgumentException e) {
                throw new BadArgument("localLimit", "localLimit " + localLimit + " cannot scale rule " + rule + ": "
                        + e.getMessage());
            }
        }
        return Immutable.copyOf(local);
    }

    private static long scaled(long value, long localLimit, long base) {
        BigInteger product = BigInteger.valueOf(value).multiply(BigInteger.valueOf(localLimit));
        BigInteger quotient = product.divide(BigInteger.valueOf(base));
        return quotient.bitLength() < 63 ? Math.max(1, quotient.longValue()) : Long.MAX_VALUE;
    }
}
