package dev.ratelimit.internal.rules;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.support.BadArgument;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Where an after-charge ({@code RateLimiter.charge}, HTTP's {@code chargeAfter}) can be kept
 * exactly: one rule of {@code gcra}, {@code token-bucket}, {@code fixed-window} or
 * {@code sliding-log}, over transport {@code lua}, without quota leases. Read by the limiter when a
 * charge is asked and, to fail at startup with the setting's name, by the HTTP settings.
 *
 * <p>Why each is refused:
 * <ul>
 * <li>several rules (the HTTP {@code limits}): each counts a client of its own at a cost of its own;
 * how one usage splits among them is not settled.
 * <li>{@code concurrency}: it counts requests in flight, for which a cost means nothing.
 * <li>{@code sliding-window}, {@code leaky-bucket} and calendar periods: their states have no way to
 * hold a debt that {@code refund.lua}'s charges keep (a weighted count, a level, a period's count).
 * <li>{@code transaction}: its MULTI/EXEC decisions issue no receipt, so nothing could be settled.
 * <li>quota leases: a node admits from its lease without asking Redis, so a debt charged on another
 * node would not be seen until the lease ends.
 * </ul>
 */
public final class ChargeRules {
    /** The algorithms {@code refund.lua}'s charges can put in debt. */
    private static final Set<Algorithm> DEBTORS = EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET,
            Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG);

    private ChargeRules() {
    }

    /**
     * Why a limiter of these rules, lending quota or not, cannot keep an after-charge's debt, whatever
     * the transport; null when it can. The API's {@code charge} asks this: a limiter with leases still
     * decides and refunds, only its charges are refused.
     */
    public static String conflict(List<Rule> rules, boolean quotaLeases) {
        Rule rule = rules.get(0);
        return rules.size() > 1 ? "several rules (" + rules + "): each counts its own client, and one usage cannot "
                + "be split among them"
                : rule.algorithm() == Algorithm.CONCURRENCY ? "algorithm concurrency: it counts requests in flight, "
                + "for which a cost means nothing"
                : rule.calendar() != null ? "a calendar period: its count cannot hold a debt; use window"
                : !DEBTORS.contains(rule.algorithm()) ? "algorithm " + rule.algorithm().configName() + ": its state "
                + "cannot hold a debt; use gcra, token-bucket, fixed-window or sliding-log"
                : quotaLeases ? "leases (true): a node admits from its lease without asking Redis, so a debt charged "
                + "on another node would not be seen"
                : null;
    }

    /** @throws BadArgument naming {@code chargeAfter} when these settings cannot keep an after-charge */
    public static void check(List<Rule> rules, Transport transport, boolean quotaLeases) {
        String conflict = transport != Transport.LUA && conflict(rules, false) == null ? "transport " + transport
                + ": its MULTI/EXEC decisions cannot be settled after the response; use transport lua"
                : conflict(rules, quotaLeases);
        if (conflict != null) {
            throw BadArgument.predicate("chargeAfter", "(true) cannot be combined with " + conflict);
        }
    }
}
