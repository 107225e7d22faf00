package dev.ratelimit.internal.scripts;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * fixed-window.lua at an exact instant. The script calls no TIME: its clock is its key's expiry (a
 * window is a counter Redis deletes when the window ends, and the script reads the time left from
 * the key's PTTL). So a test moves time by setting the counter's remaining TTL instead of sleeping:
 * SET and PEXPIRE of X ms put the clock X ms before the end of a window holding that count, and a
 * deleted key is the instant that window ended. PTTL counts whole milliseconds, so the script's
 * retry-after is (PTTL + 1) ms, the first instant the key is certainly gone.
 *
 * <p>Redis' millisecond clock may still tick between that PEXPIRE and the script's PTTL. So the
 * state is set, the script run, and the TTLs read back in one MULTI/EXEC, and the transaction (which
 * sets every key afresh) is repeated until the TTLs read back are the ones set: then no millisecond
 * passed and the script read exactly them. Nothing sleeps and nothing is timed.
 */
public final class FixedWindowAt {
    private static final int ATTEMPTS = 100;

    private FixedWindowAt() {
    }

    /** A key's state before a call: a counter with {@code ttlMillis} left, or no key ({@code count < 0}). */
    public static final class Counter {
        final String key;
        final long count;
        final long ttlMillis;

        Counter(String key, long count, long ttlMillis) {
            this.key = key;
            this.count = count;
            this.ttlMillis = ttlMillis;
        }
    }

    /** A window holding {@code count} permits, {@code ttlMillis} before its end (at least 1). */
    public static Counter counter(String key, long count, long ttlMillis) {
        return new Counter(key, count, ttlMillis);
    }

    /** No window: the key is gone. */
    public static Counter gone(String key) {
        return new Counter(key, -1, 0);
    }

    /**
     * Sets every key to its state and runs the script with {@code args} (production's: {@link
     * FrozenClockScript#args(boolean, long)}), in one MULTI/EXEC, until the TTLs read back at its
     * end are those set. Returns {all_allowed, then per rule: allowed, remaining, retry_after_us,
     * reset_after_us}, without an admission's receipts.
     */
    public static List<Long> run(UnifiedJedis client, FrozenClockScript script, List<String> args, Counter... counters) {
        List<String> keys = new ArrayList<>();
        for (Counter counter : counters) {
            keys.add(counter.key);
        }
        List<Long> lastTtls = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Response<Object> reply;
            List<Response<Long>> ttls = new ArrayList<>();
            try (AbstractTransaction tx = client.multi()) {
                for (Counter counter : counters) {
                    if (counter.count < 0) {
                        tx.del(counter.key);
                    } else {
                        tx.set(counter.key, Long.toString(counter.count));
                        tx.pexpire(counter.key, counter.ttlMillis);
                    }
                }
                reply = tx.evalsha(script.sha1(), keys, args);
                for (Counter counter : counters) {
                    ttls.add(tx.pttl(counter.key));
                }
                tx.exec();
            }
            lastTtls = new ArrayList<>();
            boolean sameMillisecond = true;
            for (int i = 0; i < counters.length; i++) {
                long ttl = ttls.get(i).get();
                lastTtls.add(ttl);
                if (counters[i].count >= 0 && ttl != counters[i].ttlMillis) {
                    sameMillisecond = false;
                }
            }
            if (sameMillisecond) {
                @SuppressWarnings("unchecked")
                List<Long> values = (List<Long>) reply.get();
                // An admission's receipts (the window's end, for refund.lua) follow; RefundClockIT checks them.
                return values.subList(0, Math.min(values.size(), 1 + 4 * counters.length));
            }
        }
        throw new AssertionError("Redis' millisecond changed within each of " + ATTEMPTS
                + " transactions (or the script changed a TTL); last TTLs read back: " + lastTtls);
    }
}
