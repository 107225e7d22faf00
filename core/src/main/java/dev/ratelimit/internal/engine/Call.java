package dev.ratelimit.internal.engine;

import dev.ratelimit.Decision;
import dev.ratelimit.RedisFailureException;
import java.util.Arrays;
import java.util.List;

/**
 * One client's decision on its way through the {@link Stage}s: what was asked and, once a stage
 * decided it, the answer. A single decision is its own list of one, so it costs this object alone;
 * a batch has one per client, under the same rules. As a {@link ClientCost} it finds its remembered
 * denial. Confined to the caller's thread.
 */
final class Call extends ClientCost implements Calls {
    /** The client as the listener, the logs and the status page name it: the keys of a tryAcquireEach joined by " + ". */
    final String key;
    /** The rules in force when it was asked, and their evaluator. */
    final RulesInForce.Applied rules;
    final List<String> redisKeys;
    /** Per rule, the permits sent: what a receipt gives back. */
    long[] permits;
    /** False for a peek, which takes nothing. */
    boolean consume;
    /** Above 0, over the limit the permits are taken for the instant they free up within this wait. */
    long maxDelayMicros;
    /** Set by the stage named: {@link OverCapacity}, {@link Evaluation}, {@link RememberedDenials}. */
    boolean overCapacity;
    boolean sent;
    boolean cached;
    Decision decision;
    /** Why Redis did not decide it, until the failure policy answers it. */
    RedisFailureException failure;

    /** One client key: its own bucket. */
    Call(RulesInForce.Applied rules, String key, List<String> redisKeys, long callerPermits, boolean consume) {
        this(rules, key, key, redisKeys, callerPermits, consume);
    }

    /**
     * @param client the key, or the list of one key per rule, that names the client's bucket ({@link ClientCost})
     * @param callerPermits the caller's permits, or 0 for each rule's cost
     */
    Call(RulesInForce.Applied rules, String key, Object client, List<String> redisKeys, long callerPermits, boolean consume) {
        super(client, callerPermits);
        this.key = key;
        this.rules = rules;
        this.redisKeys = redisKeys;
        this.consume = consume;
        this.permits = callerPermits == 0 ? rules.costs : new long[rules.costs.length];
        if (callerPermits != 0) {
            Arrays.fill(permits, callerPermits);
        }
    }

    /** The decision, once the chain ran; the failure when Redis could not decide and no policy answered. */
    Decision answer() {
        if (decision == null) {
            throw failure;
        }
        return decision;
    }

    @Override
    public int size() {
        return 1;
    }

    @Override
    public Call get(int index) {
        return this;
    }

    @Override
    public boolean batch() {
        return false;
    }
}
