package dev.ratelimit.redis;

import static dev.ratelimit.redis.WatchedSession.refusedOrNot;

import dev.ratelimit.support.Durations;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@code sliding-log} for the transaction transport: the log {@code sliding-log.lua} keeps (one
 * sorted-set entry per admission, scored by its time in microseconds, named by the running total
 * of permits), decided with WATCH and MULTI/EXEC for Redis users that may not run scripts. The
 * same key works under either transport.
 *
 * <p>A decision reads under WATCH and writes in MULTI/EXEC only when it admits, so a denial writes
 * nothing; when another client changed the log between the reads and EXEC, Redis runs nothing and
 * the decision starts again after a random pause that grows, until {@code patienceNanos} have
 * passed (then the failure policy answers). Round trips, each pipelined: WATCH and TIME; the
 * newest entry and the anchor (the newest at or before the window's start); then MULTI, the trim,
 * ZADD, PEXPIRE and EXEC for an admission, or the entries that must leave first and UNWATCH for a
 * denial. Three in all, the same as the Lua script's reads and writes, less its atomicity.
 */
final class SlidingLogTransactions {
    /** Totals are exact in Redis's double scores and Lua's numbers below 2^53; rebased before 2^52. */
    static final long REBASE_AT = 1L << 52;
    /** The entries read to find a denial's retry-after, at most; past that the window's end is said. */
    private static final int MOST_READ_FOR_RETRY = 1000;

    /** A decision: allowed (1 or 0), remaining, retry-after and reset-after in microseconds. */
    static final class Outcome {
        final boolean allowed;
        final long remaining;
        final long retryAfterMicros;
        final long resetAfterMicros;

        Outcome(boolean allowed, long remaining, long retryAfterMicros, long resetAfterMicros) {
            this.allowed = allowed;
            this.remaining = remaining;
            this.retryAfterMicros = retryAfterMicros;
            this.resetAfterMicros = resetAfterMicros;
        }

        long[] toArray() {
            return new long[] {allowed ? 1 : 0, remaining, retryAfterMicros, resetAfterMicros};
        }
    }

    private SlidingLogTransactions() {
    }

    /**
     * Decides one request of {@code permits} against {@code limit} per {@code windowMicros}.
     *
     * @param consume false to peek: nothing is watched or written
     * @param patienceNanos how long to keep trying when other clients keep changing the log
     * @throws JedisDataException when the log changed under every try within the patience
     */
    static Outcome decide(WatchedSession session, String key, long permits, long limit, long windowMicros,
            boolean consume, long patienceNanos) {
        long giveUpAt = System.nanoTime() + patienceNanos;
        for (int tries = 0; ; tries++) {
            Outcome outcome = attempt(session, key, permits, limit, windowMicros, consume);
            if (outcome != null) {
                return outcome;
            }
            long left = giveUpAt - System.nanoTime();
            if (left <= 0) {
                throw new JedisDataException("the sliding log " + key + " changed under each of " + (tries + 1)
                        + " transactions within " + TimeUnit.NANOSECONDS.toMillis(patienceNanos) + " ms");
            }
            // Every client that lost the race tries again: a random pause that grows spreads them out.
            // Short (at most 16 ms), as each round has a winner; never past the patience.
            long pause = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1L << Math.min(tries, 4)));
            Durations.pause(TimeUnit.NANOSECONDS.toMillis(Math.min(pause, left)));
        }
    }

    /** One try; null when EXEC found the log changed. */
    private static Outcome attempt(WatchedSession session, String key, long permits, long limit, long window,
            boolean consume) {
        List<CommandArguments> first = new ArrayList<>(2);
        if (consume) {
            first.add(new CommandArguments(Protocol.Command.WATCH).key(key));
        }
        first.add(new CommandArguments(Protocol.Command.TIME));
        List<Object> clock = asList(last(refusedOrNot(session.read(first))));
        long now = number(clock.get(0)) * 1_000_000L + number(clock.get(1));

        List<Object> state = session.read(Arrays.asList(
                new CommandArguments(Protocol.Command.ZRANGE).key(key).add(-1).add(-1).add("WITHSCORES"),
                new CommandArguments(Protocol.Command.ZREVRANGEBYSCORE).key(key).add(now - window).add("-inf")
                        .add("WITHSCORES").add("LIMIT").add(0).add(1)));
        Log log = Log.of(state.get(0), state.get(1));

        long count = log != null && log.newestAt > now - window ? log.total - log.base : 0;
        long reset = 0;
        if (count > 0 && (!consume || count + permits > limit)) {
            reset = log.newestAt + window - now;
        }
        if (count + permits > limit) {
            long retry = reset;
            long mustLeave = count + permits - limit;
            List<CommandArguments> denial = new ArrayList<>(2);
            if (count > 0 && permits <= limit) {
                denial.add(new CommandArguments(Protocol.Command.ZRANGEBYSCORE).key(key).add("(" + (now - window))
                        .add("+inf").add("WITHSCORES").add("LIMIT").add(0).add(Math.min(mustLeave, MOST_READ_FOR_RETRY)));
            }
            if (consume) {
                denial.add(new CommandArguments(Protocol.Command.UNWATCH));
            }
            List<Object> replies = denial.isEmpty() ? Collections.emptyList() : refusedOrNot(session.read(denial));
            if (count > 0 && permits <= limit) {
                long leaves = reaching(replies.get(0), log.base + mustLeave);
                if (leaves >= 0) {
                    retry = leaves + window - now;
                }
            }
            return new Outcome(false, limit - count, retry, reset);
        }
        if (!consume) {
            return new Outcome(true, limit - count, 0, reset);
        }
        List<CommandArguments> writes = new ArrayList<>(4);
        long remaining;
        long stamp;
        if (count == 0) {
            // An empty window, another algorithm's state or none: the log starts again from 0.
            remaining = limit - permits;
            stamp = now;
            writes.add(new CommandArguments(Protocol.Command.DEL).key(key));
            writes.add(zadd(key, stamp, permits));
        } else {
            remaining = limit - count - permits;
            stamp = Math.max(now, log.newestAt + 1);
            long total = log.total + permits;
            if (log.anchorAt >= 0 && total > REBASE_AT) {
                writes.addAll(rebased(session, key, log.anchorAt, stamp, total));
            } else {
                if (log.anchorAt >= 0) {
                    writes.add(new CommandArguments(Protocol.Command.ZREMRANGEBYSCORE).key(key).add("-inf")
                            .add("(" + log.anchorAt));
                }
                writes.add(zadd(key, stamp, total));
            }
        }
        long left = stamp + window - now;
        writes.add(new CommandArguments(Protocol.Command.PEXPIRE).key(key).add((left + 999) / 1000));
        List<Object> written = session.commit(writes);
        if (written == null) {
            return null;
        }
        refusedOrNot(written);
        // Not capped at the window: a stamp after now leaves that much later (sliding-log.lua says why).
        return new Outcome(true, remaining, 0, left);
    }

    /**
     * The writes that replace the log by its entries from the anchor on with every total lowered by
     * the anchor's, the anchor itself dropped, and the new entry added: what {@code sliding-log.lua}'s
     * rebase does. Read under the same WATCH; only for logs whose totals near 2^52.
     */
    private static List<CommandArguments> rebased(WatchedSession session, String key, long anchorAt, long stamp,
            long total) {
        List<Object> entries = pairs(refusedOrNot(session.read(Collections.singletonList(
                new CommandArguments(Protocol.Command.ZRANGEBYSCORE).key(key).add(anchorAt).add("+inf")
                        .add("WITHSCORES")))).get(0));
        long base = number(entries.get(0));
        List<CommandArguments> writes = new ArrayList<>();
        writes.add(new CommandArguments(Protocol.Command.DEL).key(key));
        for (int i = 2; i < entries.size(); i += 2) {
            writes.add(zadd(key, (long) decimal(entries.get(i + 1)), number(entries.get(i)) - base));
        }
        writes.add(zadd(key, stamp, total - base));
        return writes;
    }

    private static CommandArguments zadd(String key, long score, long total) {
        return new CommandArguments(Protocol.Command.ZADD).key(key).add(score).add(total);
    }

    /** The score of the first entry whose total reaches {@code target}, or -1 when none read does. */
    private static long reaching(Object reply, long target) {
        List<Object> entries = pairs(reply);
        for (int i = 0; i < entries.size(); i += 2) {
            if (number(entries.get(i)) >= target) {
                return (long) decimal(entries.get(i + 1));
            }
        }
        return -1;
    }

    /** The log's newest entry and its anchor, as sliding-log.lua's read() finds them. */
    private static final class Log {
        final long total;
        final long newestAt;
        final long base;
        /** The anchor's score, or -1 without one. */
        final long anchorAt;

        private Log(long total, long newestAt, long base, long anchorAt) {
            this.total = total;
            this.newestAt = newestAt;
            this.base = base;
            this.anchorAt = anchorAt;
        }

        /**
         * Null for no state: none, an empty log, or what another algorithm left (a string: WRONGTYPE;
         * members that are no totals: an older format). Any other error reply is thrown.
         */
        static Log of(Object newestReply, Object anchorReply) {
            if (wrongType(newestReply) || wrongType(anchorReply)) {
                return null;
            }
            List<Object> newest = pairs(newestReply);
            if (newest.isEmpty()) {
                return null;
            }
            try {
                List<Object> anchor = pairs(anchorReply);
                return new Log(number(newest.get(0)), (long) decimal(newest.get(1)),
                        anchor.isEmpty() ? 0 : number(anchor.get(0)),
                        anchor.isEmpty() ? -1 : (long) decimal(anchor.get(1)));
            } catch (NumberFormatException olderFormat) {
                return null;
            }
        }
    }

    private static boolean wrongType(Object reply) {
        return reply instanceof JedisDataException && String.valueOf(((JedisDataException) reply).getMessage())
                .startsWith("WRONGTYPE");
    }

    private static Object last(List<Object> replies) {
        return replies.get(replies.size() - 1);
    }

    /** Member and score alternating, whether Redis sent them flat (RESP2) or as pairs (RESP3). */
    private static List<Object> pairs(Object reply) {
        List<Object> flat = new ArrayList<>();
        for (Object each : asList(reply)) {
            if (each instanceof List) {
                flat.addAll((List<?>) each);
            } else {
                flat.add(each);
            }
        }
        return flat;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object reply) {
        if (reply instanceof JedisDataException) {
            throw (JedisDataException) reply;
        }
        return (List<Object>) reply;
    }

    private static long number(Object reply) {
        if (reply instanceof Long) {
            return (Long) reply;
        }
        return Long.parseLong(text(reply));
    }

    private static double decimal(Object reply) {
        if (reply instanceof Double) {
            return (Double) reply;
        }
        return Double.parseDouble(text(reply));
    }

    private static String text(Object reply) {
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
    }
}
