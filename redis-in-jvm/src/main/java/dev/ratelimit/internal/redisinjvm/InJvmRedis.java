package dev.ratelimit.internal.redisinjvm;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One Redis in the JVM on a manual clock: a {@link RedisKeyspace}, the scripts run on it by
 * {@link LuaScripting}, and the commands the limiter's gateway sends besides scripts, translated
 * here into keyspace commands. {@code TIME} and every TTL read {@link #nanoTime()}, which only
 * {@link #advance} moves. Thread-safe with one lock, as Redis runs one command or script at a time:
 * hold it ({@code synchronized (redis)}) around several calls that must see no other in between.
 *
 * <p>Keys, values and arguments are Java strings sent as UTF-8, as Jedis sends them; replies of
 * {@link #command} come back decoded the same way. Not an API: the engine of the test kit and of
 * the core's own tests.
 */
public final class InJvmRedis {
    /** An error reply, such as WRONGTYPE, or a script's error. */
    public static final class RedisError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RedisError(String message) {
            super(message, null, false, false);
        }
    }

    /** 2023-11-14T22:13:20Z in nanoseconds since the epoch: where a clock starts unless told. */
    public static final long START_NANOS = 1_700_000_000_000_000_000L;

    private long nanos;
    private final RedisKeyspace keyspace = new RedisKeyspace(() -> nanos);
    private final LuaScripting lua = new LuaScripting(keyspace);

    /** @param startNanos the clock's first reading, in nanoseconds since the epoch */
    public InJvmRedis(long startNanos) {
        this.nanos = startNanos;
    }

    /** The manual clock, in nanoseconds since the epoch. */
    public synchronized long nanoTime() {
        return nanos;
    }

    /** Moves the clock forward by {@code nanos}, never back. */
    public synchronized void advance(long by) {
        if (by < 0) {
            throw new IllegalArgumentException("the clock only moves forward, but was asked to move " + by + " ns");
        }
        nanos += by;
    }

    /** Every key gone, as after FLUSHALL or a restart of a Redis that kept nothing on disk. */
    public synchronized void flushAll() {
        keyspace.clear();
    }

    /**
     * A negative test's fault: while on, ZREMRANGEBYSCORE removes nothing (replies 0), so that a
     * sliding log's writes never trim it.
     */
    public synchronized void ignoreTrims(boolean ignore) {
        keyspace.ignoreTrims(ignore);
    }

    /** The string value held under {@code key}, decoded as UTF-8; null when absent, expired or of another type. */
    public synchronized String string(String key) {
        RedisKeyspace.Entry entry = keyspace.lookup(RedisKeyspace.bytes(key));
        return entry != null && entry.value instanceof String ? RedisKeyspace.text((String) entry.value) : null;
    }

    /** A sorted set's score as Redis 7 writes it in a reply ({@code %.17g}). */
    public static String score(double score) {
        return LuaNumbers.g(score, 17);
    }

    /**
     * EVALSHA of a script that is always loaded: its reply, an array of integers.
     *
     * @param script the script's name, for messages
     * @throws RedisError the script's error reply, or a reply that is no array of integers
     */
    public synchronized List<Long> eval(String script, String sha1, String source, List<String> keys, List<String> args) {
        Object reply = lua.run(script, sha1, source, keys, args);
        if (!(reply instanceof List)) {
            throw new RedisError("ERR " + script + " answered " + reply + " instead of an array");
        }
        List<Long> longs = new ArrayList<>();
        for (Object value : (List<?>) reply) {
            if (value != null && !(value instanceof Long)) {
                throw new RedisError("ERR " + script + " answered " + reply + ": not integers");
            }
            longs.add((Long) value);
        }
        return longs;
    }

    /**
     * SET NX PX, INCRBY and PTTL, as the transaction transport sends them in one MULTI/EXEC; another
     * algorithm's state under the key (INCRBY refused, or a count below the permits) is replaced by a
     * counter, as its WATCH path does.
     *
     * @return {count after the increment, PTTL in milliseconds}
     */
    public synchronized long[] incrementInWindow(String key, long permits, long windowMillis) {
        String k = RedisKeyspace.bytes(key);
        long count;
        try {
            keyspace.execute(Arrays.asList("SET", k, "0", "NX", "PX", Long.toString(windowMillis)));
            count = (Long) keyspace.execute(Arrays.asList("INCRBY", k, Long.toString(permits)));
        } catch (RedisError foreign) {
            count = -1;
        }
        if (count < permits) {
            keyspace.delete(k);
            keyspace.execute(Arrays.asList("SET", k, "0", "PX", Long.toString(windowMillis)));
            count = (Long) keyspace.execute(Arrays.asList("INCRBY", k, Long.toString(permits)));
        }
        return new long[] {count, keyspace.pttl(k)};
    }

    /** GET and PTTL; anything but a counter (or a negative one: gcra's) reads as {0, -2}. */
    public synchronized long[] readWindow(String key) {
        String k = RedisKeyspace.bytes(key);
        try {
            String value = (String) keyspace.execute(Arrays.asList("GET", k));
            long count = value == null ? 0 : Long.parseLong(value);
            return count < 0 ? new long[] {0, -2} : new long[] {count, keyspace.pttl(k)};
        } catch (RedisError | NumberFormatException foreign) {
            return new long[] {0, -2};
        }
    }

    /** DEL of each key. */
    public synchronized void delete(List<String> keys) {
        for (String key : keys) {
            keyspace.delete(RedisKeyspace.bytes(key));
        }
    }

    /**
     * One command as Jedis hands a raw reply over: integers as {@link Long}, bulk and status replies
     * as {@code byte[]}, arrays as lists, an error reply as the {@link RedisError} itself (returned,
     * not thrown, as in an EXEC's replies).
     */
    public synchronized Object raw(List<byte[]> argv) {
        List<String> bytes = new ArrayList<>(argv.size());
        for (byte[] each : argv) {
            bytes.add(new String(each, StandardCharsets.ISO_8859_1));
        }
        try {
            return rawForm(keyspace.execute(bytes));
        } catch (RedisError refused) {
            return refused;
        }
    }

    private static Object rawForm(Object reply) {
        return converted(reply, RedisKeyspace::raw, status -> status.text().getBytes(StandardCharsets.US_ASCII));
    }

    /** A reply with its bulk strings and statuses converted, inside arrays too. */
    private static Object converted(Object reply, Function<String, Object> bulk, Function<Status, Object> status) {
        if (reply instanceof String) {
            return bulk.apply((String) reply);
        }
        if (reply instanceof Status) {
            return status.apply((Status) reply);
        }
        if (reply instanceof List) {
            List<Object> each = new ArrayList<>();
            for (Object element : (List<?>) reply) {
                each.add(converted(element, bulk, status));
            }
            return each;
        }
        return reply;
    }

    /**
     * Runs one command for a test's setup or assertions: replies as Jedis hands them over (Long,
     * String decoded as UTF-8, null, List; a status as its text); an error reply throws an
     * {@link IllegalStateException} with its text.
     */
    public synchronized Object command(String... argv) {
        List<String> bytes = new ArrayList<>(argv.length);
        for (String each : argv) {
            bytes.add(RedisKeyspace.bytes(each));
        }
        try {
            return javaForm(keyspace.execute(bytes));
        } catch (RedisError refused) {
            throw new IllegalStateException(refused.getMessage());
        }
    }

    private static Object javaForm(Object reply) {
        return converted(reply, RedisKeyspace::text, Status::text);
    }

    /** The live keys, as Java strings. */
    public synchronized List<String> keys() {
        List<String> names = new ArrayList<>();
        for (String key : keyspace.liveKeys()) {
            names.add(RedisKeyspace.text(key));
        }
        return names;
    }
}
