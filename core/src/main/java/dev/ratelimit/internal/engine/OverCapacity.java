package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.scripts.DecisionAccess;
import java.time.Duration;

/**
 * Permits above a rule scaled down (adaptive limits, a lower live limit) cannot be admitted until
 * the limits rise again: such a call is sent as a peek of each rule's cost, writing nothing, and
 * its answer turned into a denial ({@link #deniedUntilLimitsRise}), so it is as true as any other.
 */
final class OverCapacity extends Stage {
    private final RulesInForce inForce;

    OverCapacity(RulesInForce inForce) {
        this.inForce = inForce;
    }

    @Override
    void decide(Calls calls) {
        boolean over = false;
        for (int c = 0; c < calls.size(); c++) {
            Call call = calls.get(c);
            for (int i = 0; i < call.permits.length && call.decision == null && !call.overCapacity; i++) {
                if (call.permits[i] > call.rules.rules.get(i).capacity()) {
                    call.overCapacity = true;
                    call.consume = false;
                    call.permits = call.rules.costs;
                    over = true;
                }
            }
        }
        next.decide(calls);
        for (int i = 0; over && i < calls.size(); i++) {
            Call call = calls.get(i);
            if (call.overCapacity && call.decision != null) {
                call.decision = deniedUntilLimitsRise(call.decision, inForce.untilNextAdaptation());
            }
        }
    }

    /**
     * The denial of permits above a rule scaled down, from a peek of the client's state: its
     * retry-after is the later of the next adaptation (the limits cannot change before) and the
     * moment the client's state is clear (then it fits as soon as the limits are back); its remaining
     * and reset are the peek's. A degraded peek (Redis failed) stands as it is.
     */
    static Decision deniedUntilLimitsRise(Decision state, Duration untilNextAdaptation) {
        if (state.degraded() && !state.local()) {
            return state;
        }
        Duration retryAfter = state.resetAfter().compareTo(untilNextAdaptation) >= 0 ? state.resetAfter()
                : untilNextAdaptation;
        // A client in the penalty box stays one there: the peek did not put it in, nor does this denial.
        return state.penalized() ? DecisionAccess.get().penaltyDenial(state.rule(), state.remaining(), retryAfter,
                state.resetAfter(), false)
                : state.local() ? Decision.local(false, state.rule(), state.remaining(), retryAfter, state.resetAfter())
                : Decision.of(false, state.rule(), state.remaining(), retryAfter, state.resetAfter());
    }
}
