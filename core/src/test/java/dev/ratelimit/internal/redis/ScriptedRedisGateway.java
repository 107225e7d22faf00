package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A deterministic Redis for tests that runs the production Lua scripts, exactly as the limiter
 * sends them, on the test kit's engine ({@link InJvmRedis}: LuaJ against a Java keyspace) on
 * a manual clock: {@code TIME} and every TTL read {@link #nanoTime()}, which only {@link #advance}
 * moves. Unlike {@link InMemoryRedisGateway}, which models fixed-window in Java, this one models
 * Redis and lets the scripts be the algorithms, so that a test of what the engine does around them
 * (leases, give-backs, resets, overrides, failures) meets every algorithm as production does.
 * {@code ScriptedRedisGatewayParityIT} holds it to real Redis for the same calls.
 *
 * <p>The clock starts at {@link #START_NANOS} (late 2023, in nanoseconds since the epoch), so that
 * {@code TIME} and the scripts' microseconds have production's magnitude; hand {@code
 * gateway::nanoTime} to the limiters too.
 *
 * <p>Faults ({@link #faults()}, {@link CallFaults}), each happening to whole calls (an {@link #evalAll}
 * is one call per script): a {@link RedisFailureException} before the call does anything (Redis not
 * reached, or an error reply); a reply lost after the call ran (a timeout: the write happened, the
 * caller cannot know); {@code refund.lua} calls held to run later ({@link #releaseHeld}, in any order:
 * give-backs delayed and reordered) or one run twice (a negative test's fault); and an action run inside
 * the next call, before it runs or after it ran but before the caller has the reply: another node acting
 * while a call is in flight, without threads.
 * Every call is counted, failed ones included, and told to the observers ({@link #observe}) with its
 * outcome. Calls are serialised, as Redis runs one command or script at a time; not for threads.
 */
public final class ScriptedRedisGateway implements RedisGateway {
    /** 2023-11-14T22:13:20Z in nanoseconds since the epoch: where the clock starts. */
    public static final long START_NANOS = InJvmRedis.START_NANOS;

    /** The kinds of call the seam offers. */
    public enum Call {
        EVAL, INCREMENT_IN_WINDOW, READ_WINDOW, SLIDING_LOG, HASH, DELETE
    }

    /** What became of a call. */
    public enum Outcome {
        /** It ran and the caller had its reply (or its script's error). */
        ANSWERED,
        /** It failed before doing anything. */
        FAILED,
        /** It ran, and the caller had a failure instead of the reply. */
        REPLY_LOST,
        /** A refund kept for later; the caller had a failure. */
        HELD,
        /** A held refund run now ({@link #releaseHeld}). */
        RELEASED,
        /** The second run of a refund replayed by {@link CallFaults#replayNextRefund}. */
        REPLAYED
    }

    /**
     * One call as the observers hear it, after it ran (or failed): its script ({@code null} for
     * the other calls), keys, arguments, the clock, its reply (null unless it ran and answered
     * integers) and its outcome.
     */
    public record Executed(Call kind, LuaScript script, List<String> keys, List<String> args, long nanos,
            List<Long> reply, Outcome outcome) {
        /** Whether this is a run of the script with this name ({@code "refund"}, {@code "gcra"}...). */
        public boolean isScript(String name) {
            return script != null && script.toString().equals(name + ".lua");
        }
    }

    private static final String REFUND_SHA1 = LuaScript.load("refund").sha1();

    private final InJvmRedis redis;
    private final Map<Call, Long> calls = new EnumMap<>(Call.class);
    private final List<Consumer<Executed>> observers = new ArrayList<>();
    private final List<Runnable> onFlush = new ArrayList<>();
    private final CallFaults faults;
    private boolean closed;

    public ScriptedRedisGateway() {
        this(START_NANOS);
    }

    public ScriptedRedisGateway(long startNanos) {
        this.redis = new InJvmRedis(startNanos);
        this.faults = new CallFaults(redis);
    }

    // ---- the clock ----

    /** The manual clock, in nanoseconds since the epoch. */
    public synchronized long nanoTime() {
        return redis.nanoTime();
    }

    /** Moves the clock forward. */
    public synchronized void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward, but was asked to move " + duration);
        }
        redis.advance(duration.toNanos());
    }

    // ---- faults ----

    /** What this gateway does to its calls on the test's behalf: failures, lost replies, held refunds, actions. */
    public synchronized CallFaults faults() {
        return faults;
    }

    /** Runs the held refund at {@code index} now (its clock: now), and drops it. */
    public synchronized List<Long> releaseHeld(int index) {
        Executed call = faults.held.remove(index);
        List<Long> reply = run(call.script(), call.keys(), call.args());
        tell(new Executed(Call.EVAL, call.script(), call.keys(), call.args(), nanoTime(), reply, Outcome.RELEASED));
        return reply;
    }

    /** Drops the held refund at {@code index} unrun (its connection closed before it was written): heard as FAILED. */
    public synchronized Executed dropHeld(int index) {
        Executed call = faults.held.remove(index);
        tell(new Executed(Call.EVAL, call.script(), call.keys(), call.args(), nanoTime(), null, Outcome.FAILED));
        return call;
    }

    /** The first key of each held refund, in the order {@link #releaseHeld} and {@link #dropHeld} index them. */
    public synchronized List<String> heldKeys() {
        List<String> keys = new ArrayList<>(faults.held.size());
        faults.held.forEach(call -> keys.add(call.keys().get(0)));
        return keys;
    }

    /**
     * Runs a script as {@link #eval} would, but uncounted, unfailed, unheard and without the armed
     * actions: a test looking at what Redis would answer without being part of what happens.
     */
    public synchronized List<Long> evalQuietly(LuaScript script, List<String> keys, List<String> args) {
        try {
            return run(script, List.copyOf(keys), List.copyOf(args));
        } catch (RedisError refused) {
            throw new RedisFailureException("ScriptedRedisGateway refused running " + script + ": " + refused.getMessage(),
                    null, true);
        }
    }

    /**
     * A restart of a Redis that kept no data: every key gone at once. Refunds held stay held (their
     * callers' calls are still out) and land, when released, on what is there then.
     */
    public synchronized void loseData() {
        redis.flushAll();
    }

    /**
     * A flush the limiters hear, as the test kit's reset: every key gone, then everyone listening
     * ({@link #whenFlushed}) told before this returns. The clock is the caller's to move.
     */
    public synchronized void flush() {
        redis.flushAll();
        for (Runnable forget : List.copyOf(onFlush)) {
            forget.run();
        }
    }

    @Override
    public synchronized void whenFlushed(Runnable forget) {
        onFlush.add(forget);
    }

    /** Hears every call after it ran or failed. */
    public synchronized void observe(Consumer<Executed> observer) {
        observers.add(observer);
    }

    // ---- inspection ----

    /** How many calls of a kind reached this gateway, failed ones included. */
    public synchronized long calls(Call kind) {
        return calls.getOrDefault(kind, 0L);
    }

    /** How many calls reached this gateway. */
    public synchronized long calls() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Runs one Redis command directly, uncounted and unfailed, for a test's setup or assertions:
     * replies as Jedis hands them over (Long, String decoded as UTF-8, null, List; a status as its
     * text); an error reply throws
     * an {@link IllegalStateException} with its text. Keys and values are Java strings (UTF-8).
     */
    public synchronized Object command(String... argv) {
        return redis.command(argv);
    }

    /** The live keys, as Java strings. */
    public synchronized List<String> keys() {
        return redis.keys();
    }

    // ---- the seam ----

    @Override
    public synchronized List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        List<String> k = List.copyOf(keys);
        List<String> sent = List.copyOf(args);
        List<String> a = script.sha1().equals(REFUND_SHA1) ? faults.refundArguments(k, sent) : sent;
        begin(Call.EVAL, script, k, a);
        if (faults.holdingRefunds() && script.sha1().equals(REFUND_SHA1)) {
            Executed kept = new Executed(Call.EVAL, script, k, a, nanoTime(), null, Outcome.HELD);
            faults.held.add(kept);
            tell(kept);
            throw new RedisFailureException("ScriptedRedisGateway held refund.lua (a timeout; it runs later)", null);
        }
        List<Long> reply;
        try {
            reply = run(script, k, a);
        } catch (RedisError refused) {
            end(new Executed(Call.EVAL, script, k, a, nanoTime(), null, Outcome.ANSWERED), null);
            throw new RedisFailureException("ScriptedRedisGateway refused running " + script + ": " + refused.getMessage(),
                    null, true);
        }
        if (a != sent) {
            faults.rewrittenRan(reply.contains(1L));
        }
        if (faults.replayArmed() && script.sha1().equals(REFUND_SHA1) && reply.contains(1L)) {
            tell(new Executed(Call.EVAL, script, k, a, nanoTime(), reply, Outcome.ANSWERED));
            List<Long> again = run(script, k, a);
            if (again.contains(1L)) {
                faults.replayedOnce();
            }
            return end(new Executed(Call.EVAL, script, k, a, nanoTime(), again, Outcome.REPLAYED), reply);
        }
        return end(new Executed(Call.EVAL, script, k, a, nanoTime(), reply, Outcome.ANSWERED), reply);
    }

    /**
     * SET NX PX, INCRBY and PTTL, as {@code TransactionGateway} sends them in one MULTI/EXEC; another
     * algorithm's state under the key (INCRBY refused, or a count below the permits) is replaced by a
     * counter, as its WATCH path does.
     */
    @Override
    public synchronized long[] incrementInWindow(String key, long permits, long windowMillis) {
        begin(Call.INCREMENT_IN_WINDOW, null, List.of(key), List.of(Long.toString(permits), Long.toString(windowMillis)));
        long[] result = redis.incrementInWindow(key, permits, windowMillis);
        end(new Executed(Call.INCREMENT_IN_WINDOW, null, List.of(key), List.of(), nanoTime(), List.of(result[0], result[1]),
                Outcome.ANSWERED), null);
        return result;
    }

    /** GET and PTTL; anything but a counter (or a negative one: gcra's) reads as {0, -2}. */
    @Override
    public synchronized long[] readWindow(String key) {
        begin(Call.READ_WINDOW, null, List.of(key), List.of());
        long[] result = redis.readWindow(key);
        end(new Executed(Call.READ_WINDOW, null, List.of(key), List.of(), nanoTime(), List.of(result[0], result[1]),
                Outcome.ANSWERED), null);
        return result;
    }

    /** {@link SlidingLogTransactions} over this keyspace: no other client can change the log between its round trips. */
    @Override
    public synchronized long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros,
            boolean consume) {
        begin(Call.SLIDING_LOG, null, List.of(key), List.of());
        long[] result;
        synchronized (redis) {
            result = InJvmTransactions.slidingLog(redis::raw, key, permits, limit, windowMicros, consume);
        }
        end(new Executed(Call.SLIDING_LOG, null, List.of(key), List.of(), nanoTime(), null, Outcome.ANSWERED), null);
        return result;
    }

    @Override
    public synchronized List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
        begin(Call.HASH, null, List.of(key), List.of());
        List<byte[]> values;
        synchronized (redis) {
            values = InJvmTransactions.hash(redis::raw, key, delete, pairs, fields);
        }
        end(new Executed(Call.HASH, null, List.of(key), List.of(), nanoTime(), null, Outcome.ANSWERED), null);
        return values;
    }

    @Override
    public boolean supportsTransactions() {
        return true;
    }

    @Override
    public synchronized void delete(List<String> keys) {
        List<String> k = List.copyOf(keys);
        begin(Call.DELETE, null, k, List.of());
        redis.delete(k);
        end(new Executed(Call.DELETE, null, k, List.of(), nanoTime(), null, Outcome.ANSWERED), null);
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "ScriptedRedisGateway";
    }

    // ---- helpers ----

    /** Counts the call, runs the action due before it, and fails it when a failure is due. */
    private void begin(Call kind, LuaScript script, List<String> keys, List<String> args) {
        if (closed) {
            throw new IllegalStateException("ScriptedRedisGateway was closed and was called again: " + kind);
        }
        calls.merge(kind, 1L, Long::sum);
        Runnable action = faults.takeBefore(script);
        if (action != null) {
            action.run();
        }
        if (faults.failNow()) {
            tell(new Executed(kind, script, keys, args, nanoTime(), null, Outcome.FAILED));
            if (faults.errorReplies()) {
                throw new RedisFailureException("ScriptedRedisGateway answered " + kind + " with an injected error", null,
                        true);
            }
            throw new RedisFailureException("ScriptedRedisGateway failed " + kind + " (injected)", null);
        }
    }

    /** Tells the observers, runs the action due after the call, and loses the reply when that is due. */
    private <T> T end(Executed executed, T reply) {
        boolean lose = faults.loseNow();
        tell(lose ? new Executed(executed.kind(), executed.script(), executed.keys(), executed.args(), executed.nanos(),
                executed.reply(), Outcome.REPLY_LOST) : executed);
        Runnable action = faults.takeAfter(executed);
        if (action != null) {
            action.run();
        }
        if (lose) {
            throw new RedisFailureException("ScriptedRedisGateway lost the reply of " + executed.kind()
                    + " (injected: it ran)", null);
        }
        return reply;
    }

    private void tell(Executed executed) {
        for (Consumer<Executed> observer : List.copyOf(observers)) {
            observer.accept(executed);
        }
    }

    /** The script run on the engine; an error reply thrown as it is. */
    private List<Long> run(LuaScript script, List<String> keys, List<String> args) {
        return redis.eval(script.toString(), script.sha1(), script.source(), keys, args);
    }
}
