package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The one seam between the core and Redis. Everything client-specific lives behind it; the rest
 * of the core never sees a Jedis type. Every method throws
 * {@link dev.ratelimit.RedisFailureException} when Redis cannot answer.
 */
public interface RedisGateway extends AutoCloseable {

    /**
     * Runs a script by EVALSHA; on NOSCRIPT (and only then) loads it and runs it once more.
     *
     * @return the script's reply: an array of integers
     */
    List<Long> eval(LuaScript script, List<String> keys, List<String> args);

    /**
     * Runs many independent script calls, each as {@link #eval} would, and answers each on its own:
     * a failure fails only the calls it concerns. A gateway that can sends them together (one
     * round trip per node, see {@link NodeGateway}); this default runs them one after another, so
     * that every gateway can batch.
     *
     * @return one outcome per call, in the calls' order
     */
    default List<ScriptCall.Outcome> evalAll(List<ScriptCall> calls) {
        List<ScriptCall.Outcome> outcomes = new ArrayList<>(calls.size());
        for (ScriptCall call : calls) {
            try {
                outcomes.add(ScriptCall.Outcome.of(eval(call.script, call.keys, call.args)));
            } catch (RedisFailureException e) {
                outcomes.add(ScriptCall.Outcome.failed(e));
            }
        }
        return outcomes;
    }

    /**
     * In one MULTI/EXEC: creates {@code key} at 0 with a TTL of {@code windowMillis} if it does not
     * exist, adds {@code permits}, and reads the new value and the TTL.
     *
     * @return {count after the increment, PTTL in milliseconds}
     */
    long[] incrementInWindow(String key, long permits, long windowMillis);

    /**
     * In one MULTI/EXEC: the value of a counter and its PTTL in milliseconds (0 and -2 if absent).
     */
    long[] readWindow(String key);

    /**
     * One {@code sliding-log} decision in WATCH and MULTI/EXEC, for users that may not run scripts
     * ({@link SlidingLogTransactions}): {allowed (1 or 0), remaining, retry-after and reset-after in
     * microseconds}. A denial or a peek writes nothing. Concurrent calls for one key wait their turn
     * and are decided together ({@link SlidingLogTurns}); one not decided within the gateway's
     * patience, as other nodes kept changing the log, is a denial, never a failure.
     */
    long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume);

    /**
     * Without scripts, in one round trip: deletes the hash {@code key} when {@code delete}, sets
     * {@code pairs} (field, value, field, value, ...) in one HSET when there are any, then reads
     * {@code fields} with HMGET. Writes run with the read in one MULTI/EXEC; a read alone is a lone
     * HMGET. No TTL is set or kept but as these commands do (HSET keeps one, DEL drops the key).
     * For users that may not run scripts (live overrides under {@code transport=transaction});
     * not on Redis Cluster ({@link #supportsTransactions()}).
     *
     * @return each field's bytes as the writes left them, in the order of {@code fields}; null where absent
     */
    List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields);

    /** Whether MULTI/EXEC is available (not on Redis Cluster, where Jedis runs no transactions). */
    boolean supportsTransactions();

    /** The circuit breaker's state (CLOSED, OPEN, HALF_OPEN), or CLOSED when there is none. */
    default String circuitState() {
        return "CLOSED";
    }

    /**
     * What each master holding the limiter's keys says about evicting keys, for
     * {@link EvictionWatch}: one reading per master, each read, refused or not reached. Never throws.
     * This default, for a gateway that reads no INFO (an in-memory fake), says nothing.
     */
    default List<MemoryReading> readMemory() {
        return Collections.emptyList();
    }

    /**
     * Readies Redis for the first decisions: opens the connections a burst of them uses at once,
     * checks them, and loads the scripts, on every node that serves keys; bounded by the gateway's
     * timeouts, stopping at the first failure. Never throws for Redis: the result tells. This default
     * has nothing of its own to ready (a caller's client, a test's fake).
     *
     * @param scripts the scripts decisions will run; a limiter script's batch form comes with it
     */
    default WarmUp warmUp(List<LuaScript> scripts) {
        return WarmUp.NOTHING_TO_DO;
    }

    /*
     * The clocks and the forgetting below are for a Redis whose time and data a test moves (the test
     * kit's, test-only-redis://): a limiter times what it keeps in the JVM (remembered denials,
     * leases, adaptation) by its store's gateway, so that this JVM's time and that Redis's agree, and
     * hears when that Redis forgot every key, so that it forgets what it kept of them at once. A real
     * Redis keeps the defaults: the JVM's clocks, and nothing to hear.
     */

    /** The monotonic clock the limiters on this gateway time local state by, in nanoseconds. */
    default long nanoTime() {
        return System.nanoTime();
    }

    /** The wall clock the limiters on this gateway stamp with, in epoch milliseconds. */
    default long currentTimeMillis() {
        return System.currentTimeMillis();
    }

    /**
     * Runs {@code forget} whenever this Redis loses every key at once, for a limiter to drop what it
     * keeps of them. The gateway may hold it weakly: the caller keeps it as long as it listens.
     */
    default void whenFlushed(Runnable forget) {
    }

    /** Deletes the keys, which must share one hash slot. */
    void delete(List<String> keys);

    /** Releases what the gateway opened; a gateway around a caller's client leaves it open. */
    @Override
    void close();
}
