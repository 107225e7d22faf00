package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Raw replies of commands sent as {@code CommandArguments} ({@link WatchedSession}), read as
 * values: Jedis leaves them as it decoded them, bytes or numbers, flat lists (RESP2) or pairs (RESP3).
 */
final class Replies {
    private Replies() {
    }

    /** A script's reply, checked to be an array of integers: the call's own list, not copied on every decision. */
    static List<Long> longs(Object reply, String where, LuaScript script) {
        if (!(reply instanceof List)) {
            throw new RedisFailureException("Redis at " + where + " answered " + script + " with " + reply
                    + " instead of an array", null, true);
        }
        List<?> values = (List<?>) reply;
        for (int i = 0; i < values.size(); i++) {
            if (!(values.get(i) instanceof Long)) {
                throw new RedisFailureException("Redis at " + where + " answered " + script + " with " + reply
                        + " instead of integers", null, true);
            }
        }
        @SuppressWarnings("unchecked")
        List<Long> longs = (List<Long>) values;
        return longs;
    }

    /** Whether the reply is Redis' refusal of a command on a key of another type. */
    static boolean wrongType(Object reply) {
        return reply instanceof JedisDataException && String.valueOf(((JedisDataException) reply).getMessage())
                .startsWith("WRONGTYPE");
    }

    /** The last of the replies. */
    static Object last(List<Object> replies) {
        return replies.get(replies.size() - 1);
    }

    /** Member and score alternating, whether Redis sent them flat (RESP2) or as pairs (RESP3). */
    static List<Object> pairs(Object reply) {
        List<Object> flat = new ArrayList<>();
        for (Object each : list(reply)) {
            if (each instanceof List) {
                flat.addAll((List<?>) each);
            } else {
                flat.add(each);
            }
        }
        return flat;
    }

    /**
     * An array reply.
     *
     * @throws JedisDataException when it is an error reply
     */
    @SuppressWarnings("unchecked")
    static List<Object> list(Object reply) {
        if (reply instanceof JedisDataException) {
            throw (JedisDataException) reply;
        }
        return (List<Object>) reply;
    }

    /** An integer, sent as one or as its digits. */
    static long number(Object reply) {
        if (reply instanceof Long) {
            return (Long) reply;
        }
        return Long.parseLong(text(reply));
    }

    /** A score, sent as a double (RESP3) or as its digits. */
    static double decimal(Object reply) {
        if (reply instanceof Double) {
            return (Double) reply;
        }
        return Double.parseDouble(text(reply));
    }

    /** A bulk or status reply as text. */
    static String text(Object reply) {
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
    }
}
