package dev.ratelimit.internal.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The commands of {@link RedisGateway#hashInTransaction}, whichever client sends them: the writes
 * (DEL, then one HSET), then the HMGET that reads the hash as the writes left it. The gateways
 * send a lone HMGET as it is, and writes with it in MULTI/EXEC.
 */
final class HashExchange {
    private HashExchange() {
    }

    /** The writes, then the HMGET last. */
    static List<CommandArguments> commands(String key, boolean delete, List<String> pairs, List<String> fields) {
        if (pairs.size() % 2 != 0) {
            throw new IllegalArgumentException("pairs must be fields and values in turn, but were " + pairs);
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("at least one field must be read, but none was");
        }
        List<CommandArguments> commands = new ArrayList<>(3);
        if (delete) {
            commands.add(new CommandArguments(Protocol.Command.DEL).key(key));
        }
        if (!pairs.isEmpty()) {
            CommandArguments hset = new CommandArguments(Protocol.Command.HSET).key(key);
            for (String each : pairs) {
                hset.add(each);
            }
            commands.add(hset);
        }
        CommandArguments hmget = new CommandArguments(Protocol.Command.HMGET).key(key);
        for (String field : fields) {
            hmget.add(field);
        }
        commands.add(hmget);
        return commands;
    }

    /** Whether the exchange writes, so that it needs MULTI/EXEC. */
    static boolean writes(List<CommandArguments> commands) {
        return commands.size() > 1;
    }

    /**
     * The HMGET's values from the replies of the whole exchange (the HMGET's is the last); an error
     * reply among them is thrown, as the script would have failed on it.
     *
     * @throws JedisDataException the first error reply, such as WRONGTYPE for a key that is no hash
     */
    static List<byte[]> values(List<Object> replies, String key) {
        if (replies == null) {
            throw new JedisDataException("the transaction on " + key + " was aborted, though nothing was watched");
        }
        WatchedSession.refusedOrNot(replies);
        Object last = replies.get(replies.size() - 1);
        if (!(last instanceof List)) {
            throw new JedisDataException("HMGET of " + key + " answered " + last + " instead of an array");
        }
        List<?> read = (List<?>) last;
        List<byte[]> values = new ArrayList<>(read.size());
        for (Object value : read) {
            if (value != null && !(value instanceof byte[])) {
                throw new JedisDataException("HMGET of " + key + " answered " + value + " instead of a value");
            }
            values.add((byte[]) value);
        }
        return values;
    }
}
