package dev.ratelimit.internal.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One connection for a whole decision made without scripts, as WATCH lives on a connection:
 * reads before MULTI, then MULTI/EXEC ({@link SlidingLogTransactions}). Commands are raw
 * {@link CommandArguments}; an error reply comes back as its {@link JedisDataException}.
 */
interface WatchedSession {
    /** The commands before MULTI, in one round trip where the client allows; their replies in order. */
    List<Object> read(List<CommandArguments> commands);

    /** MULTI, the commands and EXEC in one round trip; their replies, or null when a watched key changed. */
    List<Object> commit(List<CommandArguments> commands);

    /** Over a connection of our own: each read one pipeline, the commit one more. */
    static WatchedSession over(Connection connection) {
        return new WatchedSession() {
            @Override
            public List<Object> read(List<CommandArguments> commands) {
                for (CommandArguments command : commands) {
                    connection.sendCommand(command);
                }
                return connection.getMany(commands.size());
            }

            @Override
            @SuppressWarnings("unchecked")
            public List<Object> commit(List<CommandArguments> commands) {
                connection.sendCommand(Protocol.Command.MULTI);
                for (CommandArguments command : commands) {
                    connection.sendCommand(command);
                }
                connection.sendCommand(Protocol.Command.EXEC);
                // MULTI's OK, a QUEUED each (or the refusal to queue: then EXEC answers EXECABORT), EXEC's.
                List<Object> replies = refusedOrNot(connection.getMany(commands.size() + 2));
                return (List<Object>) replies.get(replies.size() - 1);
            }
        };
    }

    /**
     * Over a caller's client ({@code RedisStore.wrap}), through its transaction: Jedis runs each
     * command before MULTI on its own, so a decision takes a round trip per read.
     */
    static WatchedSession over(AbstractTransaction transaction, String watchedKey) {
        return new WatchedSession() {
            @Override
            public List<Object> read(List<CommandArguments> commands) {
                List<Object> replies = new ArrayList<>(commands.size());
                for (CommandArguments command : commands) {
                    // Through the transaction's own WATCH and UNWATCH, so that closing it leaves no watch behind.
                    if (command.getCommand() == Protocol.Command.WATCH) {
                        replies.add(transaction.watch(watchedKey));
                    } else if (command.getCommand() == Protocol.Command.UNWATCH) {
                        replies.add(transaction.unwatch());
                    } else {
                        try {
                            replies.add(transaction.sendCommand(command).get());
                        } catch (JedisDataException refused) {
                            replies.add(refused);
                        }
                    }
                }
                return replies;
            }

            @Override
            public List<Object> commit(List<CommandArguments> commands) {
                transaction.multi();
                for (CommandArguments command : commands) {
                    transaction.sendCommand(command);
                }
                return transaction.exec();
            }
        };
    }

    /** The replies, unless one is an error: then that error is thrown. */
    static List<Object> refusedOrNot(List<Object> replies) {
        for (Object reply : replies) {
            if (reply instanceof JedisDataException) {
                throw (JedisDataException) reply;
            }
        }
        return replies;
    }
}
