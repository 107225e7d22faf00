package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.redis.RedisKeyspace.RedisError;
import dev.ratelimit.internal.redis.RedisKeyspace.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The transaction transport's sessions ({@link WatchedSession}) over a {@link RedisKeyspace}, for
 * {@link ScriptedRedisGateway}: each command run at once, its reply as Jedis hands raw replies over
 * (integers as {@link Long}, bulk and status replies as {@code byte[]}, arrays as lists, an error as
 * its {@link JedisDataException}). WATCH and UNWATCH answer OK and a commit always runs: the gateway
 * serialises calls, so no other client can change a key between a session's round trips.
 */
final class KeyspaceSession implements WatchedSession {
    private final RedisKeyspace keyspace;

    KeyspaceSession(RedisKeyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public List<Object> read(List<CommandArguments> commands) {
        List<Object> replies = new ArrayList<>(commands.size());
        for (CommandArguments command : commands) {
            replies.add(run(command));
        }
        return replies;
    }

    @Override
    public List<Object> commit(List<CommandArguments> commands) {
        return read(commands);
    }

    private Object run(CommandArguments command) {
        List<String> argv = new ArrayList<>(command.size());
        for (Rawable each : command) {
            argv.add(new String(each.getRaw(), StandardCharsets.ISO_8859_1));
        }
        String name = argv.get(0);
        if (name.equalsIgnoreCase("WATCH") || name.equalsIgnoreCase("UNWATCH")) {
            return "OK".getBytes(StandardCharsets.US_ASCII);
        }
        try {
            return jedisForm(keyspace.execute(argv));
        } catch (RedisError refused) {
            return new JedisDataException(refused.getMessage());
        }
    }

    private static Object jedisForm(Object reply) {
        if (reply instanceof String text) {
            return RedisKeyspace.raw(text);
        }
        if (reply instanceof Status status) {
            return status.text().getBytes(StandardCharsets.US_ASCII);
        }
        if (reply instanceof List<?> list) {
            List<Object> converted = new ArrayList<>(list.size());
            for (Object each : list) {
                converted.add(jedisForm(each));
            }
            return converted;
        }
        return reply;
    }
}
