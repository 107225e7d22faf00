package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.Tuple;

/**
 * One script call on real Redis from the scripted gateway's state, for ScriptedRedisGatewayParityIT:
 * in one MULTI/EXEC, TIME, the keys set to the state given (values and remaining TTLs), the script,
 * the keys read back (type, value, PTTL), TIME again; run again until both TIMEs fall in one
 * millisecond, so that the TTLs set are exactly the ones the script met and the ones read back are
 * exactly what it left. Nothing sleeps and nothing is timed.
 */
final class RealRedisStep {
    private static final int ATTEMPTS = 200;

    /** A key's type, value (a string, "member=score" entries, or a hash) and PTTL. */
    record KeyState(String type, Object value, long pttl) {
    }

    /** A call's outcome: the keys' state before and after, its reply, or its refusal. */
    record Result(List<KeyState> before, List<Long> reply, String failure, List<KeyState> after) {
    }

    private final UnifiedJedis client;
    private final ScriptedRedisGateway fake;
    private final Map<String, Boolean> loaded = new HashMap<>();

    RealRedisStep(UnifiedJedis client, ScriptedRedisGateway fake) {
        this.client = client;
        this.fake = fake;
    }

    /** The scripted gateway's call, between snapshots of its keys' state. */
    Result snapshotThenRun(List<String> keys, Supplier<List<Long>> call) {
        List<KeyState> before = stateOf(fake, keys);
        List<Long> reply = null;
        String failure = null;
        try {
            reply = call.get();
        } catch (RedisFailureException refused) {
            failure = refused.getMessage();
        }
        return new Result(before, reply, failure, stateOf(fake, keys));
    }

    static List<KeyState> stateOf(ScriptedRedisGateway fake, List<String> keys) {
        List<KeyState> states = new ArrayList<>();
        for (String key : keys) {
            String type = (String) fake.command("TYPE", key);
            Object value = switch (type) {
                case "string" -> fake.command("GET", key);
                case "zset" -> entries((List<?>) fake.command("ZRANGE", key, "0", "-1", "WITHSCORES"));
                case "hash" -> hash((List<?>) fake.command("HGETALL", key));
                default -> null;
            };
            states.add(new KeyState(type, value, (Long) fake.command("PTTL", key)));
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

    /** The call on real Redis from {@code before}, read back in the same millisecond. */
    Result run(LuaScript script, List<String> keys, List<String> args, List<KeyState> before) {
        loaded.computeIfAbsent(script.sha1(), sha -> {
            if (!client.scriptLoad(script.source()).equals(sha)) {
                throw new AssertionError("Redis knows " + script + " by another SHA-1");
            }
            return true;
        });
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Response<Object> start;
            Response<Object> end;
            Response<Object> reply;
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
                reply = tx.evalsha(script.sha1(), keys, args);
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
                @SuppressWarnings("unchecked")
                List<Long> longs = (List<Long>) reply.get();
                return new Result(before, longs, null, after);
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
            entries.add(tuple.getElement() + "=" + LuaNumbers.g(tuple.getScore(), 17));
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
