package dev.ratelimit.internal.rules;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import java.util.List;

/**
 * Where a penalty box ({@link Rule#penalty()}) can be kept exactly: one rule, over transport
 * {@code lua}, without quota leases, and with a failure policy that does not claim to keep limiting
 * without Redis. The rule itself refuses {@code concurrency} and calendar rules. Read by the builder
 * and, to fail at startup with the setting's name, by the HTTP settings.
 *
 * <p>Why each is refused:
 * <ul>
 * <li>several rules (the HTTP {@code limits}): the box sits beside one client key, in its hash slot,
 * while several rules of one decision have one client each; whose box it would be is not settled.
 * <li>{@code transaction}: its MULTI/EXEC decisions have no penalty box; a penalty would be ignored.
 * <li>quota leases: a node admits a leased client from its lease without asking Redis, so a client
 * boxed by another node would get in until the lease ends.
 * <li>{@code onRedisFailure=local}: it promises the limit is still kept while Redis cannot be
 * asked, but the box lives in Redis, so no node could see or set it then.
 * </ul>
 */
public final class PenaltyRules {
    private PenaltyRules() {
    }

    /** @throws BadArgument naming {@code penalty} when a rule has one that these settings cannot keep */
    public static void check(List<Rule> rules, Transport transport, boolean quotaLeases, FailurePolicy failurePolicy) {
        Rule penalized = rules.stream().filter(rule -> rule.penalty() != null).findFirst().orElse(null);
        if (penalized == null) {
            return;
        }
        String conflict = rules.size() > 1 ? "several rules (" + rules + "): the penalty box belongs to one client "
                + "key, and each rule of one decision has its own"
                : transport != Transport.LUA ? "transport " + transport + ": its MULTI/EXEC decisions keep no penalty "
                + "box; use transport lua"
                : quotaLeases ? "leases: a node admits from its lease without asking Redis, so a client boxed "
                + "elsewhere would get in"
                : failurePolicy == FailurePolicy.LOCAL ? "onRedisFailure local: the penalty box lives in Redis, "
                + "so nodes limiting alone could not keep it; use allow or deny"
                : null;
        if (conflict != null) {
            throw BadArgument.predicate("penalty", "(" + Durations.format(penalized.penalty())
                    + ") cannot be combined with " + conflict);
        }
    }
}
