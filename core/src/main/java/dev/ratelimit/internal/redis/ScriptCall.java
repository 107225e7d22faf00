package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.util.List;

/**
 * One script call of a batch ({@link RedisGateway#evalAll}), and below, its {@link Outcome}. A batch
 * answers each call on its own: a node that fails fails only the calls it holds.
 */
public final class ScriptCall {
    public final LuaScript script;
    public final List<String> keys;
    public final List<String> args;

    /** @param keys at least one; all of a call's keys share one hash slot */
    public ScriptCall(LuaScript script, List<String> keys, List<String> args) {
        this.script = script;
        this.keys = keys;
        this.args = args;
    }

    /** The key that routes the call on Cluster. */
    String routingKey() {
        return keys.isEmpty() ? "" : keys.get(0);
    }

    @Override
    public String toString() {
        return script + " " + keys;
    }

    /** A call's reply, or why it has none. */
    public static final class Outcome {
        private final List<Long> reply;
        private final RedisFailureException failure;

        private Outcome(List<Long> reply, RedisFailureException failure) {
            this.reply = reply;
            this.failure = failure;
        }

        public static Outcome of(List<Long> reply) {
            return new Outcome(reply, null);
        }

        public static Outcome failed(RedisFailureException failure) {
            return new Outcome(null, failure);
        }

        /** The script's reply, or the call's failure thrown, as a single {@code eval} would have thrown it. */
        public List<Long> reply() {
            if (failure != null) {
                throw failure;
            }
            return reply;
        }

        @Override
        public String toString() {
            return failure != null ? "failed: " + failure.getMessage() : String.valueOf(reply);
        }
    }
}
