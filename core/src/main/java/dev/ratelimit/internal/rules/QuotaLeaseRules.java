package dev.ratelimit.internal.rules;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.support.BadArgument;
import java.util.List;

/**
 * Where quota leases can be exact: one rule of an algorithm whose script lends ({@code fixed-window},
 * {@code sliding-log}, {@code token-bucket}, {@code gcra}), over transport {@code lua}, without adaptive limits
 * (which would change the limit under a lease every second). Read by the builder and, to fail at startup with
 * the setting's name, by the HTTP settings.
 */
public final class QuotaLeaseRules {
    private QuotaLeaseRules() {
    }

    /** @throws BadArgument naming {@code leases} unless they can serve these rules so */
    public static void check(List<Rule> rules, Transport transport, AdaptiveLimit adaptive) {
        Algorithm algorithm = rules.get(0).algorithm();
        boolean lends = rules.size() == 1 && rules.get(0).calendar() == null && (algorithm == Algorithm.FIXED_WINDOW
                || algorithm == Algorithm.SLIDING_LOG || algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA);
        if (!lends || transport != Transport.LUA || adaptive != null) {
            throw new BadArgument("leases", "leases must be false unless there is one fixed-window, sliding-log, "
                    + "token-bucket or gcra rule over transport lua and no adaptive limits, but the rules were " + rules + " over transport "
                    + transport + (adaptive != null ? " with adaptive limits" : ""));
        }
    }
}
