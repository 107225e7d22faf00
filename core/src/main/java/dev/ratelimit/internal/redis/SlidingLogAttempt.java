package dev.ratelimit.internal.redis;

import static dev.ratelimit.internal.redis.Replies.decimal;
import static dev.ratelimit.internal.redis.Replies.number;
import static dev.ratelimit.internal.redis.Replies.pairs;
import static dev.ratelimit.internal.redis.WatchedSession.refusedOrNot;

import dev.ratelimit.internal.redis.SlidingLogTransactions.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;

/**
 * One try of a {@link SlidingLogTransactions} decision, on one session: the log read as
 * {@code sliding-log.lua}'s read() finds it, each request decided after the ones before it, and
 * the admissions written as the script writes them. Round trips, each pipelined: WATCH and TIME;
 * the newest entry and the anchor (the newest at or before the window's start); then MULTI, the
 * trim, ZADD, PEXPIRE and EXEC when one is admitted, or UNWATCH when none is, with the entries that
 * must leave before a denied request fits. Three in all, the same as the Lua script's reads and
 * writes, less its atomicity.
 */
final class SlidingLogAttempt {
    /** Totals are exact in Redis's double scores and Lua's numbers below 2^53; rebased before 2^52. */
    static final long REBASE_AT = 1L << 52;
    /** The entries read to find a denial's retry-after, at most; past that the window's end is said. */
    private static final int MOST_READ_FOR_RETRY = 1000;

    private SlidingLogAttempt() {
    }

    /** One try; null when EXEC found the log changed. {@code lastReset} gets the read's reset-after. */
    static Outcome[] run(WatchedSession session, String key, long[] permits, long limit, long window,
            boolean consume, long[] lastReset) {
        List<CommandArguments> first = new ArrayList<>(2);
        if (consume) {
            first.add(new CommandArguments(Protocol.Command.WATCH).key(key));
        }
        first.add(new CommandArguments(Protocol.Command.TIME));
        List<Object> clock = Replies.list(Replies.last(refusedOrNot(session.read(first))));
        long now = number(clock.get(0)) * 1_000_000L + number(clock.get(1));

        List<Object> state = session.read(Arrays.asList(
                new CommandArguments(Protocol.Command.ZRANGE).key(key).add(-1).add(-1).add("WITHSCORES"),
                new CommandArguments(Protocol.Command.ZREVRANGEBYSCORE).key(key).add(now - window).add("-inf")
                        .add("WITHSCORES").add("LIMIT").add(0).add(1)));
        Log log = Log.of(state.get(0), state.get(1));
        // An empty window, another algorithm's state or none: an admission starts the log again from 0.
        boolean fresh = log == null || log.newestAt <= now - window;
        long base = fresh ? 0 : log.base;
        long readTotal = fresh ? 0 : log.total;
        long total = readTotal;
        long newestAt = fresh ? now - window : log.newestAt;
        lastReset[0] = fresh ? 0 : newestAt + window - now;

        Outcome[] outcomes = new Outcome[permits.length];
        long[] mustLeave = new long[permits.length];
        long mostToLeave = 0;
        // This try's admissions as a log's entries read: total and score, alternating.
        List<Object> added = new ArrayList<>();
        for (int i = 0; i < permits.length; i++) {
            long count = total - base;
            long reset = count > 0 ? newestAt + window - now : 0;
            if (count + permits[i] > limit) {
                if (count > 0 && permits[i] <= limit) {
                    mustLeave[i] = count + permits[i] - limit;
                    mostToLeave = Math.max(mostToLeave, mustLeave[i]);
                }
                outcomes[i] = new Outcome(false, limit - count, reset, reset);
            } else if (!consume) {
                outcomes[i] = new Outcome(true, limit - count, 0, reset);
            } else {
                newestAt = count == 0 ? now : Math.max(now, newestAt + 1);
                total += permits[i];
                added.add(total);
                added.add(newestAt);
                // Not capped at the window: a stamp after now leaves that much later (sliding-log.lua says why).
                outcomes[i] = new Outcome(true, limit - count - permits[i], 0, newestAt + window - now);
            }
        }
        // The entries that must leave before a denied request fits, as far as they were in the log.
        CommandArguments leaving = readTotal - base > 0 && mostToLeave > 0
                ? new CommandArguments(Protocol.Command.ZRANGEBYSCORE).key(key).add("(" + (now - window)).add("+inf")
                        .add("WITHSCORES").add("LIMIT").add(0).add(Math.min(mostToLeave, MOST_READ_FOR_RETRY))
                : null;
        Object entries;
        if (added.isEmpty()) {
            List<CommandArguments> reads = new ArrayList<>(2);
            if (leaving != null) {
                reads.add(leaving);
            }
            if (consume) {
                reads.add(new CommandArguments(Protocol.Command.UNWATCH));
            }
            List<Object> replies = reads.isEmpty() ? Collections.emptyList() : refusedOrNot(session.read(reads));
            entries = leaving != null ? replies.get(0) : null;
        } else {
            // Inside MULTI, before the writes: under the WATCH it reads what a read before MULTI would,
            // without a round trip of its own.
            List<CommandArguments> writes = new ArrayList<>(5);
            if (leaving != null) {
                writes.add(leaving);
            }
            if (fresh) {
                writes.add(new CommandArguments(Protocol.Command.DEL).key(key));
                writes.add(zadd(key, added, 0));
            } else if (log.anchorAt >= 0 && total > REBASE_AT) {
                writes.addAll(rebased(session, key, log.anchorAt, added));
            } else {
                if (log.anchorAt >= 0) {
                    writes.add(new CommandArguments(Protocol.Command.ZREMRANGEBYSCORE).key(key).add("-inf")
                            .add("(" + log.anchorAt));
                }
                writes.add(zadd(key, added, 0));
            }
            writes.add(new CommandArguments(Protocol.Command.PEXPIRE).key(key).add((newestAt + window - now + 999) / 1000));
            List<Object> written = session.commit(writes);
            if (written == null) {
                return null;
            }
            refusedOrNot(written);
            entries = leaving != null ? written.get(0) : null;
        }
        for (int i = 0; i < permits.length; i++) {
            if (mustLeave[i] > 0) {
                long target = base + mustLeave[i];
                long leaves = leaving != null ? reaching(pairs(entries), target) : -1;
                if (leaves < 0 && target > readTotal) {
                    // Among this try's own admissions; not when the read stopped short of the entry.
                    leaves = reaching(added, target);
                }
                if (leaves >= 0) {
                    outcomes[i] = new Outcome(false, outcomes[i].remaining, leaves + window - now,
                            outcomes[i].resetAfterMicros);
                }
            }
        }
        return outcomes;
    }

    /**
     * The writes that replace the log by its entries from the anchor on with every total lowered by
     * the anchor's, the anchor itself dropped, and the new entries added: what {@code sliding-log.lua}'s
     * rebase does. Read under the same WATCH; only for logs whose totals near 2^52.
     */
    private static List<CommandArguments> rebased(WatchedSession session, String key, long anchorAt, List<Object> added) {
        List<Object> entries = new ArrayList<>(pairs(refusedOrNot(session.read(Collections.singletonList(
                new CommandArguments(Protocol.Command.ZRANGEBYSCORE).key(key).add(anchorAt).add("+inf")
                        .add("WITHSCORES")))).get(0)));
        long base = number(entries.get(0));
        entries.addAll(added);
        return Arrays.asList(new CommandArguments(Protocol.Command.DEL).key(key), zadd(key, entries.subList(2,
                entries.size()), base));
    }

    /** One ZADD of entries given as a log's are read (total, score, ...), each total lowered by {@code base}. */
    private static CommandArguments zadd(String key, List<Object> entries, long base) {
        CommandArguments zadd = new CommandArguments(Protocol.Command.ZADD).key(key);
        for (int i = 0; i < entries.size(); i += 2) {
            zadd.add((long) decimal(entries.get(i + 1))).add(number(entries.get(i)) - base);
        }
        return zadd;
    }

    /** The score of the first entry (total, score, ...) whose total reaches {@code target}, or -1 when none does. */
    private static long reaching(List<Object> entries, long target) {
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
            if (Replies.wrongType(newestReply) || Replies.wrongType(anchorReply)) {
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
}
