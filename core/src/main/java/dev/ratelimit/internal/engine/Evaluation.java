package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.ScriptCall;
import dev.ratelimit.internal.scripts.Evaluator;
import java.util.ArrayList;
import java.util.List;

/**
 * The last stage, and the one that writes to Redis: each call the stages before left undecided goes
 * to the rules' {@link Evaluator}, one round trip. A single call goes alone (other threads' calls
 * may join it: coalescing), a batch's in one pipeline (one per Cluster node). What Redis could not
 * decide keeps its failure, for {@link FailureAnswer}. The subclasses take a lease with an admission.
 */
class Evaluation extends Stage {
    final RedisGateway gateway;
    private final DecisionAccounting accounting;

    Evaluation(RedisGateway gateway, DecisionAccounting accounting) {
        this.gateway = gateway;
        this.accounting = accounting;
    }

    @Override
    final void decide(Calls calls) {
        long start = System.nanoTime();
        if (calls.batch() ? sendAll(calls) : sendOne(calls.get(0))) {
            // One sample per round trip: a batch's is not one per key, which would weigh batches over calls.
            accounting.redisAnswered(System.nanoTime() - start);
        }
    }

    /** One call's round trip: its mode (take, look, or take within a wait) as the call says. */
    Decision ask(Call call, Evaluator evaluator) {
        return call.consume && call.maxDelayMicros > 0
                ? evaluator.decideDelaying(call.redisKeys, call.permits, call.maxDelayMicros)
                : evaluator.decide(call.redisKeys, call.permits, call.consume);
    }

    private boolean sendOne(Call call) {
        call.sent = true;
        try {
            call.decision = ask(call, call.rules.evaluator);
            return true;
        } catch (RedisFailureException e) {
            call.failure = e;
            return false;
        }
    }

    private boolean sendAll(Calls calls) {
        Evaluator evaluator = calls.get(0).rules.evaluator;
        List<ScriptCall> scripts = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            if (call.decision == null) {
                call.sent = true;
                scripts.add(evaluator.call(call.redisKeys, call.permits, call.consume));
            }
        }
        if (scripts.isEmpty()) {
            return false;
        }
        List<ScriptCall.Outcome> outcomes = gateway.evalAll(scripts);
        boolean answered = false;
        int next = 0;
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            if (call.sent) {
                try {
                    call.decision = evaluator.decision(call.redisKeys, call.permits, outcomes.get(next++).reply());
                    answered = true;
                } catch (RedisFailureException e) {
                    call.failure = e;
                }
            }
        }
        return answered;
    }
}
