package dev.ratelimit.internal.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Redis' keyspace in Java for {@link ScriptedRedisGateway}: strings, sorted sets and hashes with
 * Redis' TTLs on a manual clock, and the commands the production scripts and the transaction
 * transport send, answered as Redis 7 answers them (replies and error texts). Not thread-safe: the
 * gateway serialises calls, as Redis runs one command or script at a time.
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

    /** An error reply. */
    static final class RedisError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RedisError(String message) {
            super(message, null, false, false);
        }
    }

    /** A status reply such as OK. */
    record Status(String text) {
    }

    /** A key's value and its expiry in epoch milliseconds (-1: none). */
    static final class Entry {
        Object value;
        long expiresAt = -1;

        Entry(Object value) {
            this.value = value;
        }
    }

    private final Map<String, Entry> keys = new HashMap<>();
    private final LongSupplier nanos;
    /** A negative test's fault ({@link CallFaults#ignoreTrims}): ZREMRANGEBYSCORE removes nothing. */
    boolean ignoringTrims;

    /** @param nanos the manual clock, in nanoseconds since the epoch */
    RedisKeyspace(LongSupplier nanos) {
        this.nanos = nanos;
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
        return switch (name) {
            case "GET" -> get(arity(a, 1, 1));
            case "SET" -> set(arity(a, 2, 8));
            case "DEL" -> {
                long n = 0;
                for (String key : arity(a, 1, Integer.MAX_VALUE)) {
                    n += delete(key) ? 1 : 0;
                }
                yield n;
            }
            case "EXISTS" -> {
                long n = 0;
                for (String key : arity(a, 1, Integer.MAX_VALUE)) {
                    n += lookup(key) != null ? 1 : 0;
                }
                yield n;
            }
            case "TYPE" -> new Status(type(lookup(arity(a, 1, 1).get(0))));
            case "INCRBY" -> incrBy(arity(a, 2, 2).get(0), parseLong(a.get(1)));
            case "DECRBY" -> {
                long by = parseLong(arity(a, 2, 2).get(1));
                if (by == Long.MIN_VALUE) {
                    throw new RedisError("ERR decrement would overflow");
                }
                yield incrBy(a.get(0), -by);
            }
            case "INCR" -> incrBy(arity(a, 1, 1).get(0), 1);
            case "PTTL" -> pttl(arity(a, 1, 1).get(0));
            case "PEXPIRE" -> pexpire(arity(a, 2, 3));
            case "TIME" -> {
                arity(a, 0, 0);
                long micros = nowMicros();
                yield List.of(Long.toString(Math.floorDiv(micros, 1_000_000L)),
                        Long.toString(Math.floorMod(micros, 1_000_000L)));
            }
            case "ZADD", "ZREM", "ZCARD", "ZCOUNT", "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE",
                    "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZSCORE" -> SortedSets.execute(this, name, a);
            case "HGETALL", "HMGET", "HGET", "HSET", "HDEL", "HINCRBY" -> hash(name, a);
            default -> throw new RedisError("ERR unknown command '" + argv.get(0) + "'");
        };
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
        return entry.value instanceof String ? "string" : entry.value instanceof SortedSets.ZSet ? "zset" : "hash";
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

    private String get(List<String> a) {
        return typed(a.get(0), String.class);
    }

    private Object set(List<String> a) {
        String key = a.get(0);
        boolean nx = false;
        boolean xx = false;
        boolean keepTtl = false;
        boolean get = false;
        long expiresAt = -1;
        for (int i = 2; i < a.size(); i++) {
            String option = a.get(i).toUpperCase(Locale.ROOT);
            switch (option) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "KEEPTTL" -> keepTtl = true;
                case "GET" -> get = true;
                case "PX", "EX", "PXAT", "EXAT" -> {
                    if (i + 1 >= a.size() || expiresAt >= 0) {
                        throw new RedisError(SYNTAX);
                    }
                    long amount = parseLong(a.get(++i));
                    if (amount <= 0) {
                        throw new RedisError("ERR invalid expire time in 'set' command");
                    }
                    long millis = option.startsWith("EX") ? amount * 1000 : amount;
                    expiresAt = option.endsWith("AT") ? millis : nowMillis() + millis;
                }
                default -> throw new RedisError(SYNTAX);
            }
        }
        if ((nx && xx) || (keepTtl && expiresAt >= 0)) {
            throw new RedisError(SYNTAX);
        }
        Entry old = lookup(key);
        String previous = get && old != null ? typed(key, String.class) : null;
        if ((nx && old != null) || (xx && old == null)) {
            return get ? previous : null;
        }
        Entry entry = new Entry(a.get(1));
        entry.expiresAt = keepTtl && old != null ? old.expiresAt : expiresAt;
        if (entry.expiresAt >= 0 && entry.expiresAt <= nowMillis() && !keepTtl) {
            // SET ... PXAT in the past: Redis deletes at once.
            keys.remove(key);
        } else {
            keys.put(key, entry);
        }
        return get ? previous : new Status("OK");
    }

    private long incrBy(String key, long by) {
        String text = typed(key, String.class);
        long value = text == null ? 0 : parseLong(text);
        if ((by > 0 && value > Long.MAX_VALUE - by) || (by < 0 && value < Long.MIN_VALUE - by)) {
            throw new RedisError("ERR increment or decrement would overflow");
        }
        long result = value + by;
        Entry entry = lookup(key);
        if (entry == null) {
            keys.put(key, new Entry(Long.toString(result)));
        } else {
            entry.value = Long.toString(result);
        }
        return result;
    }

    private long pexpire(List<String> a) {
        long millis = parseLong(a.get(1));
        Entry entry = lookup(a.get(0));
        if (a.size() == 3) {
            String flag = a.get(2).toUpperCase(Locale.ROOT);
            long current = entry == null ? -1 : entry.expiresAt;
            long wanted = nowMillis() + millis;
            boolean skip = switch (flag) {
                case "NX" -> current >= 0;
                case "XX" -> current < 0;
                case "GT" -> current < 0 || wanted <= current;
                case "LT" -> current >= 0 && wanted >= current;
                default -> throw new RedisError("ERR Unsupported option " + a.get(2));
            };
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

    @SuppressWarnings("unchecked")
    private Object hash(String name, List<String> a) {
        String key = a.isEmpty() ? "" : a.get(0);
        Map<String, String> hash = typed(key, LinkedHashMap.class);
        switch (name) {
            case "HGETALL" -> {
                arity(a, 1, 1);
                List<Object> reply = new ArrayList<>();
                if (hash != null) {
                    hash.forEach((field, value) -> {
                        reply.add(field);
                        reply.add(value);
                    });
                }
                return reply;
            }
            case "HGET" -> {
                arity(a, 2, 2);
                return hash == null ? null : hash.get(a.get(1));
            }
            case "HMGET" -> {
                arity(a, 2, Integer.MAX_VALUE);
                List<Object> reply = new ArrayList<>();
                for (String field : a.subList(1, a.size())) {
                    reply.add(hash == null ? null : hash.get(field));
                }
                return reply;
            }
            case "HSET" -> {
                if (a.size() < 3 || a.size() % 2 == 0) {
                    throw new RedisError("ERR wrong number of arguments for 'hset' command");
                }
                Map<String, String> target = hash != null ? hash : newHash(key);
                long added = 0;
                for (int i = 1; i < a.size(); i += 2) {
                    added += target.put(a.get(i), a.get(i + 1)) == null ? 1 : 0;
                }
                return added;
            }
            case "HDEL" -> {
                arity(a, 2, Integer.MAX_VALUE);
                long removed = 0;
                if (hash != null) {
                    for (String field : a.subList(1, a.size())) {
                        removed += hash.remove(field) != null ? 1 : 0;
                    }
                    if (hash.isEmpty()) {
                        keys.remove(key);
                    }
                }
                return removed;
            }
            default -> {
                arity(a, 3, 3);
                long by = parseLong(a.get(2));
                Map<String, String> target = hash != null ? hash : newHash(key);
                String old = target.get(a.get(1));
                long value;
                try {
                    value = old == null ? 0 : parseLong(old);
                } catch (RedisError e) {
                    throw new RedisError("ERR hash value is not an integer");
                }
                target.put(a.get(1), Long.toString(Math.addExact(value, by)));
                return value + by;
            }
        }
    }

    private Map<String, String> newHash(String key) {
        LinkedHashMap<String, String> hash = new LinkedHashMap<>();
        keys.put(key, new Entry(hash));
        return hash;
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
