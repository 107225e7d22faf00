package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.Durations;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * The transaction transport's window counter in MULTI/EXEC, whichever client runs it: a counter
 * created with its TTL, incremented, and its TTL read, in one round trip. A transaction cannot
 * branch, so another algorithm's state under the key (left by a policy switched in place) is
 * recognised after the fact (INCRBY refused it, or the count is below the permits: gcra's
 * negative number) and replaced under WATCH, as the scripts replace it; peeks read it as no state.
 */
final class WindowTransactions {
    /** Tries to replace another algorithm's state by a counter before giving up on one decision. */
    private static final int REPLACEMENT_TRIES = 16;

    /** Opens transactions: with MULTI sent, or without, to WATCH first. */
    interface Source {
        AbstractTransaction open(boolean watching);
    }

    private WindowTransactions() {
    }

    /** @return {count after the increment, PTTL in milliseconds} */
    static long[] increment(Source transactions, String key, long permits, long windowMillis) {
        for (int tries = 0; ; tries++) {
            long[] counted = count(transactions, key, permits, windowMillis);
            if (counted == null) {
                if (tries == REPLACEMENT_TRIES) {
                    throw new JedisDataException("the key " + key + " changed under " + REPLACEMENT_TRIES
                            + " tries to replace another algorithm's state by a counter");
                }
                // Every client meeting the old state tries at once, and each one's INCRBY of it
                // aborts the others' WATCH: a random pause that grows breaks the tie.
                Durations.pause(ThreadLocalRandom.current().nextLong(1L << Math.min(tries, 6)));
                counted = replaceForeign(transactions, key, permits, windowMillis);
            }
            if (counted != null) {
                return counted;
            }
        }
    }

    /** @return {count, PTTL in milliseconds}; {0, -2} when absent or another algorithm's state */
    static long[] read(Source transactions, String key) {
        try (AbstractTransaction transaction = transactions.open(false)) {
            Response<String> count = transaction.get(key);
            Response<Long> ttl = transaction.pttl(key);
            transaction.exec();
            long counted = counterValue(count);
            return counted < 0 ? new long[] {0, -2} : new long[] {counted, ttl.get()};
        }
    }

    /** SET NX PX, INCRBY and PTTL in one MULTI/EXEC; null when the key held another algorithm's state. */
    private static long[] count(Source transactions, String key, long permits, long windowMillis) {
        try (AbstractTransaction transaction = transactions.open(false)) {
            // SET NX PX creates the counter with its TTL in one command, and INCRBY keeps the
            // TTL: no moment exists where the counter lives without an expiry.
            transaction.set(key, "0", SetParams.setParams().nx().px(windowMillis));
            Response<Long> count = transaction.incrBy(key, permits);
            Response<Long> ttl = transaction.pttl(key);
            transaction.exec();
            long counted;
            try {
                counted = count.get();
            } catch (JedisDataException foreign) {
                return null;
            }
            // A counter is never below 0, so after INCRBY it is at least permits.
            return counted < permits ? null : new long[] {counted, ttl.get()};
        }
    }

    /**
     * WATCH the key, check it still is not a counter, then DEL and count in MULTI/EXEC. Null when
     * another client changed the key meanwhile (EXEC aborted) or already replaced it: then counting
     * starts over. Only the first decisions after an algorithm switch take this path.
     */
    private static long[] replaceForeign(Source transactions, String key, long permits, long windowMillis) {
        try (AbstractTransaction transaction = transactions.open(true)) {
            transaction.watch(key);
            Response<String> type = transaction.type(key);
            Response<String> value = transaction.get(key);
            if ("string".equals(type.get()) && counterValue(value) >= 0 || "none".equals(type.get())) {
                transaction.unwatch();
                return null;
            }
            transaction.multi();
            transaction.del(key);
            transaction.set(key, "0", SetParams.setParams().px(windowMillis));
            Response<Long> count = transaction.incrBy(key, permits);
            Response<Long> ttl = transaction.pttl(key);
            return transaction.exec() == null ? null : new long[] {count.get(), ttl.get()};
        }
    }

    /** The counter a GET answered, or -1 when it is not one (another algorithm's state). */
    private static long counterValue(Response<String> value) {
        try {
            String text = value.get();
            return text == null ? 0 : Long.parseLong(text);
        } catch (JedisDataException | NumberFormatException foreign) {
            return -1;
        }
    }
}
