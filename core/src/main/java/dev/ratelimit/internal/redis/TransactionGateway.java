package dev.ratelimit.internal.redis;

import static dev.ratelimit.internal.redis.Replies.number;
import static dev.ratelimit.internal.redis.WatchedSession.refusedOrNot;

import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The transaction transport's calls, for Redis users that may not run scripts, whichever gateway
 * sends them: each an exchange of commands on one connection ({@link WatchedSession}), borrowed,
 * routed and reported on by the gateway as any of its calls. The window counter is created with its
 * TTL, incremented, and its TTL read, in one MULTI/EXEC; a sliding log's decisions go in turn
 * ({@link SlidingLogTurns}); the overrides hash is deleted, set and read in one.
 *
 * <p>A transaction cannot branch, so another algorithm's state under a counter's key (left by a
 * policy switched in place) is recognised after the fact (INCRBY refused it, or the count is below
 * the permits: gcra's negative number) and replaced under WATCH, as the scripts replace it; peeks
 * read it as no state.
 */
abstract class TransactionGateway implements RedisGateway {
    /** Tries to replace another algorithm's state by a counter before giving up on one decision. */
    private static final int REPLACEMENT_TRIES = 16;

    private final SlidingLogTurns turns;

    TransactionGateway(Duration patience, String where) {
        this.turns = new SlidingLogTurns(patience, where);
    }

    /**
     * Runs an exchange on a connection of the key's node that no other call uses meanwhile; what it
     * throws becomes a {@link dev.ratelimit.RedisFailureException} as for any call of the gateway.
     */
    abstract <T> T inSession(String key, String action, Function<WatchedSession, T> exchange);

    @Override
    public long[] incrementInWindow(String key, long permits, long windowMillis) {
        return inSession(key, "counting in a MULTI/EXEC transaction", session -> {
            for (int tries = 0; ; tries++) {
                long[] counted = count(session, key, permits, windowMillis);
                if (counted == null) {
                    if (tries == REPLACEMENT_TRIES) {
                        throw new JedisDataException("the key " + key + " changed under " + REPLACEMENT_TRIES
                                + " tries to replace another algorithm's state by a counter");
                    }
                    // Every client meeting the old state tries at once, and each one's INCRBY of it
                    // aborts the others' WATCH: a random pause that grows breaks the tie.
                    Durations.pause(ThreadLocalRandom.current().nextLong(1L << Math.min(tries, 6)));
                    counted = replaceForeign(session, key, permits, windowMillis);
                }
                if (counted != null) {
                    return counted;
                }
            }
        });
    }

    /** {count, PTTL in milliseconds}; {0, -2} when absent or another algorithm's state. */
    @Override
    public long[] readWindow(String key) {
        return inSession(key, "reading a counter in a MULTI/EXEC transaction", session -> {
            List<Object> read = session.commit(Arrays.asList(command(Protocol.Command.GET, key),
                    command(Protocol.Command.PTTL, key)));
            long counted = counterValue(read.get(0));
            return counted < 0 ? new long[] {0, -2} : new long[] {counted, number(read.get(1))};
        });
    }

    @Override
    public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
        // Each try borrows a connection and gives it back before any pause: see SlidingLogTurns.
        return turns.decide(attempt -> inSession(key, "deciding a sliding log in a MULTI/EXEC transaction", attempt),
                key, permits, limit, windowMicros, consume);
    }

    /** A lone HMGET as it is; writes with it in one MULTI/EXEC. */
    @Override
    public List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
        List<CommandArguments> commands = hashCommands(key, delete, pairs, fields);
        boolean writes = commands.size() > 1;
        return inSession(key, writes ? "writing a hash in a MULTI/EXEC transaction" : "reading a hash",
                session -> hashValues(writes ? session.commit(commands) : session.read(commands), key));
    }

    /** {@link #hashInTransaction}'s commands, whichever client sends them: DEL, then one HSET, then the HMGET last. */
    static List<CommandArguments> hashCommands(String key, boolean delete, List<String> pairs, List<String> fields) {
        if (pairs.size() % 2 != 0) {
            throw new IllegalArgumentException("pairs must be fields and values in turn, but were " + pairs);
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("at least one field must be read, but none was");
        }
        List<CommandArguments> commands = new ArrayList<>(3);
        if (delete) {
            commands.add(command(Protocol.Command.DEL, key));
        }
        if (!pairs.isEmpty()) {
            commands.add(command(Protocol.Command.HSET, key).addObjects(pairs.toArray()));
        }
        commands.add(command(Protocol.Command.HMGET, key).addObjects(fields.toArray()));
        return commands;
    }

    /**
     * The HMGET's values from the replies of the whole exchange (the HMGET's is the last); an error
     * reply among them is thrown, as the script would have failed on it.
     *
     * @throws JedisDataException the first error reply, such as WRONGTYPE for a key that is no hash
     */
    static List<byte[]> hashValues(List<Object> replies, String key) {
        if (replies == null) {
            throw new JedisDataException("the transaction on " + key + " was aborted, though nothing was watched");
        }
        Object last = Replies.last(refusedOrNot(replies));
        if (!(last instanceof List)) {
            throw new JedisDataException("HMGET of " + key + " answered " + last + " instead of an array");
        }
        List<byte[]> values = new ArrayList<>();
        for (Object value : (List<?>) last) {
            if (value != null && !(value instanceof byte[])) {
                throw new JedisDataException("HMGET of " + key + " answered " + value + " instead of a value");
            }
            values.add((byte[]) value);
        }
        return values;
    }

    /** SET NX PX, INCRBY and PTTL in one MULTI/EXEC; null when the key held another algorithm's state. */
    private static long[] count(WatchedSession session, String key, long permits, long windowMillis) {
        // SET NX PX creates the counter with its TTL in one command, and INCRBY keeps the TTL: no
        // moment exists where the counter lives without an expiry.
        List<Object> replies = session.commit(Arrays.asList(
                command(Protocol.Command.SET, key).add("0").add("NX").add("PX").add(windowMillis),
                command(Protocol.Command.INCRBY, key).add(permits), command(Protocol.Command.PTTL, key)));
        if (replies.get(1) instanceof JedisDataException) {
            return null;
        }
        long counted = number(replies.get(1));
        // A counter is never below 0, so after INCRBY it is at least permits.
        return counted < permits ? null : new long[] {counted, number(replies.get(2))};
    }

    /**
     * WATCH the key, check it still is not a counter, then DEL and count in MULTI/EXEC. Null when
     * another client changed the key meanwhile (EXEC aborted) or already replaced it: then counting
     * starts over. Only the first decisions after an algorithm switch take this path.
     */
    private static long[] replaceForeign(WatchedSession session, String key, long permits, long windowMillis) {
        List<Object> read = session.read(Arrays.asList(command(Protocol.Command.WATCH, key),
                command(Protocol.Command.TYPE, key), command(Protocol.Command.GET, key)));
        String type = Replies.text(read.get(1));
        if ("string".equals(type) && counterValue(read.get(2)) >= 0 || "none".equals(type)) {
            session.read(Collections.singletonList(new CommandArguments(Protocol.Command.UNWATCH)));
            return null;
        }
        List<Object> replies = session.commit(Arrays.asList(command(Protocol.Command.DEL, key),
                command(Protocol.Command.SET, key).add("0").add("PX").add(windowMillis),
                command(Protocol.Command.INCRBY, key).add(permits), command(Protocol.Command.PTTL, key)));
        return replies == null ? null : new long[] {number(refusedOrNot(replies).get(2)), number(replies.get(3))};
    }

    /** The counter a GET answered, or -1 when it is not one (another algorithm's state). */
    private static long counterValue(Object reply) {
        try {
            return reply == null ? 0 : reply instanceof JedisDataException ? -1 : number(reply);
        } catch (NumberFormatException foreign) {
            return -1;
        }
    }

    private static CommandArguments command(Protocol.Command command, String key) {
        return new CommandArguments(command).key(key);
    }
}
