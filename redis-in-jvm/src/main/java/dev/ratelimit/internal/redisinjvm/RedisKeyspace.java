package dev.ratelimit.internal.redisinjvm;

import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Redis' keyspace in Java: strings, sorted sets and hashes with Redis' TTLs on a manual clock, and
 * the commands the production scripts and the transaction transport send, answered as Redis 7
 * answers them (replies and error texts). Not thread-safe: {@link InJvmRedis} serialises calls, as
 * Redis runs one command or script at a time.
 *
 * <p>Every name and value is a byte string held as an ISO-8859-1 {@link String} (one char per
 * byte), so that ordering is Redis' memcmp and no byte is lost. Replies are {@link Long} (integer),
 * {@link String} (bulk), null (nil bulk), {@link List} (array, nil elements as null) and
 * {@link Status}; an error reply is thrown as {@link RedisError}.
 *
 * <p>Expiry is Redis' on milliseconds: a key given a TTL of {@code w} ms at millisecond {@code t}
 * expires at {@code t + w}, answers PTTL {@code t + w - now}, and is gone once {@code now > t + w}
 * (lazily, when next touched, as every command looks keys up through {@link #lookup}). PTTL is -2 for
 * a missing key and -1 for one without TTL. A sorted set or hash left empty is deleted, as in Redis.
 */
final class RedisKeyspace {
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String NOT_FLOAT = "ERR value is not a valid float";
    static final String SYNTAX = "ERR syntax error";

    /** A key's value and its expiry in epoch milliseconds (-1: none). */
    static final class Entry {
        /** A {@link String}, a sorted set or a hash ({@link java.util.LinkedHashMap}). */
        Object value;
        long expiresAt = -1;

        Entry(Object value) {
            this.value = value;
        }
    }

    private final Map<String, Entry> keys = new HashMap<>();
    private final LongSupplier nanos;
    /** A negative test's fault (core's CallFaults): ZREMRANGEBYSCORE removes nothing. */
    private boolean ignoringTrims;

    /** @param nanos the manual clock, in nanoseconds since the epoch */
    RedisKeyspace(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /**
     * A negative test's fault: while on, ZREMRANGEBYSCORE removes nothing (replies 0), so that a
     * sliding log's writes never trim it.
     */
    void ignoreTrims(boolean ignore) {
        ignoringTrims = ignore;
    }

    long nowMillis() {
        return Math.floorDiv(nanos.getAsLong(), 1_000_000L);
    }

    long nowMicros() {
        return Math.floorDiv(nanos.getAsLong(), 1_000L);
    }

    /** The live entry under {@code key}, dropping it first when Redis would have expired it. */
    Entry lookup(String key) {
        Entry entry = keys.get(key);
        if (entry != null && entry.expiresAt >= 0 && nowMillis() > entry.expiresAt) {
            keys.remove(key);
            return null;
        }
        return entry;
    }

    /** The live keys, for snapshots. */
    List<String> liveKeys() {
        List<String> live = new ArrayList<>();
        for (String key : new ArrayList<>(keys.keySet())) {
            if (lookup(key) != null) {
                live.add(key);
            }
        }
        return live;
    }

    /** Puts an entry as it is (a test restoring a state). */
    void put(String key, Object value, long expiresAt) {
        Entry entry = new Entry(value);
        entry.expiresAt = expiresAt;
        keys.put(key, entry);
    }

    long pttl(String key) {
        Entry entry = lookup(key);
        return entry == null ? -2 : entry.expiresAt < 0 ? -1 : Math.max(0, entry.expiresAt - nowMillis());
    }

    boolean delete(String key) {
        return lookup(key) != null && keys.remove(key) != null;
    }

    /** Every key gone, as after a restart of a Redis that kept no data on disk. */
    void clear() {
        keys.clear();
    }

    /** Runs one command: {@code argv[0]} is its name. */
    Object execute(List<String> argv) {
        if (argv.isEmpty()) {
            throw new RedisError("ERR wrong number of arguments");
        }
        String name = argv.get(0).toUpperCase(Locale.ROOT);
        List<String> a = argv.subList(1, argv.size());
        if (ignoringTrims && name.equals("ZREMRANGEBYSCORE")) {
            return 0L;
        }
        switch (name) {
            case "GET":
                return Strings.get(this, arity(a, 1, 1));
            case "SET":
                return Strings.set(this, arity(a, 2, 8));
            case "DEL":
                return deleteAll(arity(a, 1, Integer.MAX_VALUE));
            case "EXISTS":
                return exist(arity(a, 1, Integer.MAX_VALUE));
            case "TYPE":
                return new Status(type(lookup(arity(a, 1, 1).get(0))));
            case "INCRBY":
                return Strings.incrBy(this, arity(a, 2, 2).get(0), parseLong(a.get(1)));
            case "DECRBY":
                return decrBy(arity(a, 2, 2));
            case "INCR":
                return Strings.incrBy(this, arity(a, 1, 1).get(0), 1);
            case "PTTL":
                return pttl(arity(a, 1, 1).get(0));
            case "PEXPIRE":
                return pexpire(arity(a, 2, 3));
            case "TIME":
                arity(a, 0, 0);
                long micros = nowMicros();
                return Arrays.<Object>asList(Long.toString(Math.floorDiv(micros, 1_000_000L)),
                        Long.toString(Math.floorMod(micros, 1_000_000L)));
            case "ZADD":
            case "ZREM":
            case "ZCARD":
            case "ZCOUNT":
            case "ZRANGE":
            case "ZRANGEBYSCORE":
            case "ZREVRANGEBYSCORE":
            case "ZREMRANGEBYRANK":
            case "ZREMRANGEBYSCORE":
            case "ZSCORE":
                return SortedSets.execute(this, name, a);
            case "HGETALL":
            case "HMGET":
            case "HGET":
            case "HSET":
            case "HDEL":
            case "HINCRBY":
                return Hashes.execute(this, name, a);
            default:
                throw new RedisError("ERR unknown command '" + argv.get(0) + "'");
        }
    }

    private long deleteAll(List<String> keys) {
        long n = 0;
        for (String key : keys) {
            n += delete(key) ? 1 : 0;
        }
        return n;
    }

    private long exist(List<String> keys) {
        long n = 0;
        for (String key : keys) {
            n += lookup(key) != null ? 1 : 0;
        }
        return n;
    }

    private long decrBy(List<String> a) {
        long by = parseLong(a.get(1));
        if (by == Long.MIN_VALUE) {
            throw new RedisError("ERR decrement would overflow");
        }
        return Strings.incrBy(this, a.get(0), -by);
    }

    static List<String> arity(List<String> a, int min, int max) {
        if (a.size() < min || a.size() > max) {
            throw new RedisError("ERR wrong number of arguments");
        }
        return a;
    }

    static String type(Entry entry) {
        if (entry == null) {
            return "none";
        }
        return entry.value instanceof String ? "string" : entry.value instanceof ZSet ? "zset" : "hash";
    }

    /** Redis' string2ll: an optional '-', then digits without a leading zero (but "0"), in range. */
    static long parseLong(String text) {
        if (!text.matches("-?(0|[1-9][0-9]{0,18})") || text.equals("-0")) {
            throw new RedisError(NOT_INTEGER);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new RedisError(NOT_INTEGER);
        }
    }

    /** The entry's value if it is of {@code type}, null when missing; WRONGTYPE otherwise. */
    <T> T typed(String key, Class<T> type) {
        Entry entry = lookup(key);
        if (entry == null) {
            return null;
        }
        if (!type.isInstance(entry.value)) {
            throw new RedisError(WRONGTYPE);
        }
        return type.cast(entry.value);
    }

    private long pexpire(List<String> a) {
        long millis = parseLong(a.get(1));
        Entry entry = lookup(a.get(0));
        if (a.size() == 3) {
            String flag = a.get(2).toUpperCase(Locale.ROOT);
            long current = entry == null ? -1 : entry.expiresAt;
            long wanted = nowMillis() + millis;
            boolean skip;
            if (flag.equals("NX")) {
                skip = current >= 0;
            } else if (flag.equals("XX")) {
                skip = current < 0;
            } else if (flag.equals("GT")) {
                skip = current < 0 || wanted <= current;
            } else if (flag.equals("LT")) {
                skip = current >= 0 && wanted >= current;
            } else {
                throw new RedisError("ERR Unsupported option " + a.get(2));
            }
            if (entry == null || skip) {
                return 0;
            }
        }
        if (entry == null) {
            return 0;
        }
        if (millis <= 0) {
            // The expiry is now or past: Redis deletes the key at once.
            keys.remove(a.get(0));
        } else {
            entry.expiresAt = nowMillis() + millis;
        }
        return 1;
    }

    /** A new, empty hash under {@code key}: HSET and HINCRBY on a missing key. */
    Map<String, String> newHash(String key) {
        LinkedHashMap<String, String> hash = new LinkedHashMap<>();
        keys.put(key, new Entry(hash));
        return hash;
    }

    /** Drops a key its command left empty, as Redis does. */
    void removeKey(String key) {
        keys.remove(key);
    }

    /** A Java string (as Jedis sends it, UTF-8) as the keyspace holds bytes. */
    static String bytes(String javaText) {
        return new String(javaText.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** The keyspace's byte string as Java text, decoded as UTF-8 (as Jedis decodes replies). */
    static String text(String bytes) {
        return new String(bytes.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    /** The raw bytes of a keyspace string. */
    static byte[] raw(String bytes) {
        return bytes.getBytes(StandardCharsets.ISO_8859_1);
    }
}
