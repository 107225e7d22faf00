package dev.ratelimit.internal.redisinjvm;

import static dev.ratelimit.internal.redisinjvm.RedisKeyspace.arity;
import static dev.ratelimit.internal.redisinjvm.RedisKeyspace.parseLong;

import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hash commands of {@link RedisKeyspace}, as Redis 7.0 answers them: fields in insertion
 * order, a missing field nil, an emptied hash deleted.
 */
final class Hashes {
    private Hashes() {
    }

    @SuppressWarnings("unchecked")
    static Object execute(RedisKeyspace keyspace, String name, List<String> a) {
        String key = a.isEmpty() ? "" : a.get(0);
        Map<String, String> hash = keyspace.typed(key, LinkedHashMap.class);
        switch (name) {
            case "HGETALL":
                arity(a, 1, 1);
                List<Object> all = new ArrayList<>();
                if (hash != null) {
                    for (Map.Entry<String, String> field : hash.entrySet()) {
                        all.add(field.getKey());
                        all.add(field.getValue());
                    }
                }
                return all;
            case "HGET":
                arity(a, 2, 2);
                return hash == null ? null : hash.get(a.get(1));
            case "HMGET":
                arity(a, 2, Integer.MAX_VALUE);
                List<Object> values = new ArrayList<>();
                for (String field : a.subList(1, a.size())) {
                    values.add(hash == null ? null : hash.get(field));
                }
                return values;
            case "HSET":
                return hset(keyspace, key, hash, a);
            case "HDEL":
                arity(a, 2, Integer.MAX_VALUE);
                long removed = 0;
                if (hash != null) {
                    for (String field : a.subList(1, a.size())) {
                        removed += hash.remove(field) != null ? 1 : 0;
                    }
                    if (hash.isEmpty()) {
                        keyspace.removeKey(key);
                    }
                }
                return removed;
            default:
                return hincrBy(keyspace, key, hash, arity(a, 3, 3));
        }
    }

    private static long hset(RedisKeyspace keyspace, String key, Map<String, String> hash, List<String> a) {
        if (a.size() < 3 || a.size() % 2 == 0) {
            throw new RedisError("ERR wrong number of arguments for 'hset' command");
        }
        Map<String, String> target = hash != null ? hash : keyspace.newHash(key);
        long added = 0;
        for (int i = 1; i < a.size(); i += 2) {
            added += target.put(a.get(i), a.get(i + 1)) == null ? 1 : 0;
        }
        return added;
    }

    private static long hincrBy(RedisKeyspace keyspace, String key, Map<String, String> hash, List<String> a) {
        long by = parseLong(a.get(2));
        Map<String, String> target = hash != null ? hash : keyspace.newHash(key);
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
