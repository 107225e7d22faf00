package dev.ratelimit.internal.redisinjvm;

import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.util.List;
import java.util.Locale;

/**
 * The string commands of {@link RedisKeyspace} that write (SET with its options, INCRBY), as Redis
 * 7.0 answers them: a SET with an expiry in the past deletes the key, INCRBY keeps the TTL.
 */
final class Strings {
    private Strings() {
    }

    static String get(RedisKeyspace keyspace, List<String> a) {
        return keyspace.typed(a.get(0), String.class);
    }

    static Object set(RedisKeyspace keyspace, List<String> a) {
        String key = a.get(0);
        boolean nx = false;
        boolean xx = false;
        boolean keepTtl = false;
        boolean get = false;
        long expiresAt = -1;
        for (int i = 2; i < a.size(); i++) {
            String option = a.get(i).toUpperCase(Locale.ROOT);
            if (option.equals("NX")) {
                nx = true;
            } else if (option.equals("XX")) {
                xx = true;
            } else if (option.equals("KEEPTTL")) {
                keepTtl = true;
            } else if (option.equals("GET")) {
                get = true;
            } else if (option.equals("PX") || option.equals("EX") || option.equals("PXAT") || option.equals("EXAT")) {
                if (i + 1 >= a.size() || expiresAt >= 0) {
                    throw new RedisError(RedisKeyspace.SYNTAX);
                }
                long amount = RedisKeyspace.parseLong(a.get(++i));
                if (amount <= 0) {
                    throw new RedisError("ERR invalid expire time in 'set' command");
                }
                long millis = option.startsWith("EX") ? amount * 1000 : amount;
                expiresAt = option.endsWith("AT") ? millis : keyspace.nowMillis() + millis;
            } else {
                throw new RedisError(RedisKeyspace.SYNTAX);
            }
        }
        if ((nx && xx) || (keepTtl && expiresAt >= 0)) {
            throw new RedisError(RedisKeyspace.SYNTAX);
        }
        RedisKeyspace.Entry old = keyspace.lookup(key);
        String previous = get && old != null ? keyspace.typed(key, String.class) : null;
        if ((nx && old != null) || (xx && old == null)) {
            return get ? previous : null;
        }
        RedisKeyspace.Entry entry = new RedisKeyspace.Entry(a.get(1));
        entry.expiresAt = keepTtl && old != null ? old.expiresAt : expiresAt;
        if (entry.expiresAt >= 0 && entry.expiresAt <= keyspace.nowMillis() && !keepTtl) {
            // SET ... PXAT in the past: Redis deletes at once.
            keyspace.removeKey(key);
        } else {
            keyspace.put(key, entry.value, entry.expiresAt);
        }
        return get ? previous : new Status("OK");
    }

    static long incrBy(RedisKeyspace keyspace, String key, long by) {
        String text = keyspace.typed(key, String.class);
        long value = text == null ? 0 : RedisKeyspace.parseLong(text);
        if ((by > 0 && value > Long.MAX_VALUE - by) || (by < 0 && value < Long.MIN_VALUE - by)) {
            throw new RedisError("ERR increment or decrement would overflow");
        }
        long result = value + by;
        RedisKeyspace.Entry entry = keyspace.lookup(key);
        if (entry == null) {
            keyspace.put(key, Long.toString(result), -1);
        } else {
            entry.value = Long.toString(result);
        }
        return result;
    }
}
