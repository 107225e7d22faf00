package dev.ratelimit.testing;

import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.Tuple;

/**
 * One call on real Redis from an in-JVM Redis's state, for the parity tests that hold the in-JVM
 * Redis (core's scripted gateway, the test kit) to a real one: in one MULTI/EXEC, TIME, the keys
 * set to the state given (values and remaining TTLs), the call (a script, or commands), the keys
 * read back (type, value, PTTL), TIME again; run again until both TIMEs fall in one millisecond,
 * so that the TTLs set are exactly the ones the call met and the ones read back are exactly what
 * it left. Nothing sleeps and nothing is timed.
 */
public final class RealRedisStep {
    private static final int ATTEMPTS = 200;

    /** A key's type, value (a string, "member=score" entries, or a hash) and PTTL. */
    public record KeyState(String type, Object value, long pttl) {
    }

    /** A call's outcome: the keys' state before and after, its reply (raw, as Jedis hands it over), or its refusal. */
    public record Result(List<KeyState> before, Object reply, String failure, List<KeyState> after) {
        /** The reply of a script of the limiter: integers. */
        @SuppressWarnings("unchecked")
        public List<Long> longs() {
            return (List<Long>) reply;
        }
    }

    private final UnifiedJedis client;
    private final Map<String, Boolean> loaded = new HashMap<>();

    public RealRedisStep(UnifiedJedis client) {
        this.client = client;
    }

    /**
     * The state of the keys in an in-JVM Redis, read with its {@code command} (argv to the reply as
     * Jedis hands it over, strings decoded).
     */
    public static List<KeyState> stateOf(Function<String[], Object> command, List<String> keys) {
        List<KeyState> states = new ArrayList<>();
        for (String key : keys) {
            String type = (String) command.apply(new String[] {"TYPE", key});
            Object value = switch (type) {
                case "string" -> command.apply(new String[] {"GET", key});
                case "zset" -> entries((List<?>) command.apply(new String[] {"ZRANGE", key, "0", "-1", "WITHSCORES"}));
                case "hash" -> hash((List<?>) command.apply(new String[] {"HGETALL", key}));
                default -> null;
            };
            states.add(new KeyState(type, value, (Long) command.apply(new String[] {"PTTL", key})));
        }
        return states;
    }

    private static List<String> entries(List<?> flat) {
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < flat.size(); i += 2) {
            entries.add(flat.get(i) + "=" + flat.get(i + 1));
        }
        return entries;
    }

    private static Map<String, String> hash(List<?> flat) {
        Map<String, String> hash = new LinkedHashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            hash.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return hash;
    }

    /** The script on real Redis from {@code before}, read back in the same millisecond. */
    public Result run(String sha1, String source, List<String> keys, List<String> args, List<KeyState> before) {
        loaded.computeIfAbsent(sha1, sha -> {
            if (!client.scriptLoad(source).equals(sha)) {
                throw new AssertionError("Redis knows a script by another SHA-1 than " + sha);
            }
            return true;
        });
        return run(keys, before, tx -> tx.evalsha(sha1, keys, args));
    }

    /**
     * Commands on real Redis from {@code before}, read back in the same millisecond: {@code call}
     * queues them in the transaction and answers the reply that counts (a failure if it is an error).
     */
    public Result run(List<String> keys, List<KeyState> before, Function<AbstractTransaction, Response<?>> call) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Response<Object> start;
            Response<Object> end;
            Response<?> reply;
            List<Response<String>> types = new ArrayList<>();
            List<Response<String>> strings = new ArrayList<>();
            List<Response<List<Tuple>>> sets = new ArrayList<>();
            List<Response<Map<String, String>>> hashes = new ArrayList<>();
            List<Response<Long>> ttls = new ArrayList<>();
            try (AbstractTransaction tx = client.multi()) {
                start = tx.sendCommand(Protocol.Command.TIME, new String[0]);
                for (int i = 0; i < keys.size(); i++) {
                    restore(tx, keys.get(i), before.get(i));
                }
                reply = call.apply(tx);
                for (String key : keys) {
                    types.add(tx.type(key));
                    strings.add(tx.get(key));
                    sets.add(tx.zrangeWithScores(key, 0, -1));
                    hashes.add(tx.hgetAll(key));
                    ttls.add(tx.pttl(key));
                }
                end = tx.sendCommand(Protocol.Command.TIME, new String[0]);
                tx.exec();
            }
            if (millis(start) != millis(end)) {
                continue;
            }
            List<KeyState> after = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                String type = types.get(i).get();
                Object value = switch (type) {
                    case "string" -> strings.get(i).get();
                    case "zset" -> tuples(sets.get(i).get());
                    case "hash" -> new LinkedHashMap<>(hashes.get(i).get());
                    default -> null;
                };
                after.add(new KeyState(type, value, ttls.get(i).get()));
            }
            try {
                return new Result(before, reply.get(), null, after);
            } catch (JedisDataException refused) {
                return new Result(before, null, refused.getMessage(), after);
            }
        }
        throw new AssertionError("Redis' millisecond changed within each of " + ATTEMPTS + " transactions");
    }

    @SuppressWarnings("unchecked")
    private static void restore(AbstractTransaction tx, String key, KeyState state) {
        tx.del(key);
        switch (state.type()) {
            case "string" -> tx.set(key, (String) state.value());
            case "zset" -> {
                Map<String, Double> members = new LinkedHashMap<>();
                for (String entry : (List<String>) state.value()) {
                    int at = entry.lastIndexOf('=');
                    members.put(entry.substring(0, at), Double.parseDouble(entry.substring(at + 1)));
                }
                tx.zadd(key, members);
            }
            case "hash" -> tx.hset(key, (Map<String, String>) state.value());
            default -> {
                return;
            }
        }
        if (state.pttl() == 0) {
            throw new AssertionError(key + " is at its last millisecond, which no PEXPIRE can set: step over it");
        }
        if (state.pttl() > 0) {
            tx.pexpire(key, state.pttl());
        }
    }

    private static List<String> tuples(List<Tuple> tuples) {
        List<String> entries = new ArrayList<>();
        for (Tuple tuple : tuples) {
            entries.add(tuple.getElement() + "=" + InJvmRedis.score(tuple.getScore()));
        }
        return entries;
    }

    private static long millis(Response<Object> time) {
        List<?> parts = (List<?>) time.get();
        long seconds = Long.parseLong(new String((byte[]) parts.get(0), StandardCharsets.US_ASCII));
        long micros = Long.parseLong(new String((byte[]) parts.get(1), StandardCharsets.US_ASCII));
        return seconds * 1000 + micros / 1000;
    }
}
