package dev.ratelimit.internal.engine;

import dev.ratelimit.internal.scripts.Evaluator;
import java.util.function.Consumer;

/**
 * One step of a decision: it decides the calls it can and hands the others to the next stage,
 * then sees every answer on the way back. Linked once, in their order, by {@link DecisionEngine};
 * ARCHITECTURE.md ("A decision") says why in that order, and which stage may write to Redis.
 * Thread-safe: a stage keeps nothing of a call but what the {@link Call} holds.
 *
 * <p>What a stage keeps of a client on this node (a remembered denial, a quota lease, a local
 * count) it forgets when the engine tells every stage ({@link #each}).
 */
abstract class Stage {
    /** The rest of the chain, linked before the engine is published; null for the last stage. */
    Stage next;

    /** Decides what this stage decides of the calls; a call another stage decided is left alone. */
    abstract void decide(Calls calls);

    /** The client's keys are about to be deleted here (a reset): what was kept of it goes. */
    void forgetClient(String redisKey) {
    }

    /** The client's state changed in Redis (a reset, a refund): its remembered denials go; all for null. */
    void forgetDenials(String key) {
    }

    /** The rules changed, or some client was reset on another node: whatever may no longer hold goes. */
    void forgetAll(boolean rulesChanged) {
    }

    /** The node stops: what this stage holds of Redis's goes back; how many gave something back. */
    int giveBack(Evaluator evaluator) {
        return 0;
    }

    /** Tells this stage and every one after it. */
    final void each(Consumer<Stage> event) {
        for (Stage stage = this; stage != null; stage = stage.next) {
            event.accept(stage);
        }
    }
}
