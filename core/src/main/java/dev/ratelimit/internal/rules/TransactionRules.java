package dev.ratelimit.internal.rules;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.support.BadArgument;
import java.util.List;

/**
 * What the {@code transaction} transport can decide: one {@code fixed-window} or {@code sliding-log} rule in
 * MULTI/EXEC. Read by its evaluator and, to fail at startup with the setting's name, by the HTTP settings.
 */
public final class TransactionRules {
    private TransactionRules() {
    }

    /** @throws IllegalArgumentException unless the rules are one rule whose algorithm runs as a transaction */
    public static void check(List<Rule> rules) {
        if (rules.size() != 1 || !rules.get(0).algorithm().runsAsTransaction()) {
            throw new BadArgument("transport", "transport 'transaction' supports exactly one rule, of "
                    + Algorithm.namesWhere(Algorithm::runsAsTransaction).replace(" and ", " or ")
                    + " (MULTI/EXEC cannot make a decision all or nothing), but the rules were " + rules
                    + "; use transport 'lua' for other algorithms and for several rules");
        }
    }
}
