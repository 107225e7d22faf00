package dev.ratelimit.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The transaction transport's calls that are more than plain commands ({@code sliding-log}'s
 * WATCH and MULTI/EXEC, a hash's writes and read) over a Redis in this JVM: the test kit's, and the
 * core tests' scripted gateway. It lives here, not with them, because it reuses the transport's own
 * translation ({@link SlidingLogTransactions}, {@link TransactionGateway#hashCommands}), which is
 * internal to this package: so those answers come from the production code, not a copy of it.
 *
 * <p>The Redis is one function: a command's raw argv to its raw reply as Jedis hands it over
 * ({@link Long}, {@code byte[]}, lists, an error reply as a {@link RuntimeException} returned, not
 * thrown). WATCH and UNWATCH answer OK and a commit always runs: the caller holds that Redis's lock
 * for the whole call, so no other client can change a key between its round trips.
 */
public final class InJvmTransactions {
    private InJvmTransactions() {
    }

    /** {@link RedisGateway#slidingLogInTransaction} on the Redis {@code redis}; hold its lock around this call. */
    public static long[] slidingLog(Function<List<byte[]>, Object> redis, String key, long permits, long limit,
            long windowMicros, boolean consume) {
        Session session = new Session(redis);
        SlidingLogTransactions.Sessions sessions = attempt -> attempt.apply(session);
        return consume
                ? SlidingLogTransactions.decide(sessions, key, new long[] {permits}, limit, windowMicros, 0)[0].toArray()
                : SlidingLogTransactions.peek(sessions, key, permits, limit, windowMicros).toArray();
    }

    /** {@link RedisGateway#hashInTransaction} on the Redis {@code redis}; hold its lock around this call. */
    public static List<byte[]> hash(Function<List<byte[]>, Object> redis, String key, boolean delete, List<String> pairs,
            List<String> fields) {
        return TransactionGateway.hashValues(new Session(redis).commit(TransactionGateway.hashCommands(key, delete, pairs,
                fields)), key);
    }

    private static final class Session implements WatchedSession {
        private final Function<List<byte[]>, Object> redis;

        Session(Function<List<byte[]>, Object> redis) {
            this.redis = redis;
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
            List<byte[]> argv = new ArrayList<>(command.size());
            for (Rawable each : command) {
                argv.add(each.getRaw());
            }
            String name = new String(argv.get(0), java.nio.charset.StandardCharsets.US_ASCII);
            if (name.equalsIgnoreCase("WATCH") || name.equalsIgnoreCase("UNWATCH")) {
                return "OK".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            }
            Object reply = redis.apply(argv);
            return reply instanceof RuntimeException ? new JedisDataException(((RuntimeException) reply).getMessage())
                    : reply;
        }
    }
}
