package dev.ratelimit.internal.redis;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory {@link RedisGateway} for unit tests of what the core does in Java around Redis:
 * the local deny cache, failure policies, listeners, stats, the circuit breaker. Exact and
 * sleep-free: time is a manual clock the test moves with {@link #advance(Duration)}, and the same
 * clock ({@link #nanoTime()}) can drive the limiter and the breaker.
 *
 * <p>What it models, and nothing more:
 * <ul>
 *   <li>{@code fixed-window.lua} with {@code limiter-driver.lua}, argument and reply layout as in
 *       their headers: ARGV[1] '1' consumes, '0' peeks; per rule permits, limit, window in
 *       microseconds; reply {all_allowed, per rule: allowed, remaining, retry_after_us,
 *       reset_after_us}. Several keys are all or nothing; a denial or a peek writes nothing.
 *       Any other script fails with {@link UnsupportedOperationException} naming it.</li>
 *   <li>{@link #incrementInWindow} (SET NX PX, INCRBY, PTTL) and {@link #readWindow} (GET, PTTL),
 *       {@link #hashInTransaction} (DEL, HSET, HMGET of hashes without TTL), and {@link #delete}.</li>
 *   <li>{@code client-reset.lua} as {@link #delete} of the client's keys (its guard not kept).</li>
 *   <li>{@code overrides.lua}'s 'read' (never any overrides; the client-reset mark made at 0 when
 *       absent) and 'reset' (a count more in the mark, a counter as {@link #incrementInWindow} keeps one).</li>
 *   <li>Redis' expiry on a millisecond clock (the manual clock's nanoseconds, floored): a key with
 *       a TTL of {@code w} ms set at millisecond {@code t} answers PTTL {@code t + w - now} and is
 *       gone once {@code now > t + w}, as Redis removes a key only past its expiry millisecond.</li>
 * </ul>
 *
 * <p>What it does not model: any other algorithm's script or state, key types, WRONGTYPE, hash
 * slots and Cluster, NOSCRIPT, connections and timeouts. An injected failure happens before the
 * call does anything, so a failed call never writes (a real timeout may have). Every call counts,
 * failed ones included. Calls are serialised, as Redis runs one command or script at a time.
 * InMemoryRedisGatewayParityIT checks its answers against real Redis running the real script.
 */
public final class InMemoryRedisGateway implements RedisGateway {
    /** The kinds of call the seam offers, for {@link #calls(Call)}. */
    public enum Call {
        EVAL, INCREMENT_IN_WINDOW, READ_WINDOW, DELETE, HASH_WRITE
    }

    private static final String FIXED_WINDOW_SHA1 = LuaEvaluator.script(Algorithm.FIXED_WINDOW).sha1();
    private static final String OVERRIDES_SHA1 = LuaScript.load("overrides").sha1();
    private static final String CLIENT_RESET_SHA1 = LuaScript.load("client-reset").sha1();
    private static final long NANOS_PER_MILLI = 1_000_000;

    /** A counter and the millisecond after which Redis considers it gone. */
    private static final class Counter {
        long count;
        final long expiresAtMillis;

        Counter(long count, long expiresAtMillis) {
            this.count = count;
            this.expiresAtMillis = expiresAtMillis;
        }
    }

    private final Map<String, Counter> counters = new HashMap<>();
    /** Hashes, without TTLs: only the overrides hash is one, and it has none. */
    private final Map<String, Map<String, byte[]>> hashes = new HashMap<>();
    private final Map<Call, Long> calls = new EnumMap<>(Call.class);
    /** Starts on a millisecond boundary, far from zero, so that no code can rely on a zero clock. */
    private long nanos = 1_000_000 * NANOS_PER_MILLI;
    private int failuresLeft;
    private boolean failing;
    /** Whether injected failures are error replies (Redis answered) rather than unreachable Redis. */
    private boolean errorReplies;
    private Runnable duringNextCall;
    private boolean closed;

    // ---- the clock ----

    /** The manual clock, in nanoseconds: hand {@code gateway::nanoTime} to the limiter and breaker. */
    public synchronized long nanoTime() {
        return nanos;
    }

    /** Moves the clock forward. */
    public synchronized void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward, but was asked to move " + duration);
        }
        nanos += duration.toNanos();
    }

    // ---- fault injection and inspection ----

    /*
     * Each of the three replaces what was injected before. The failures are RedisFailureExceptions,
     * as the real gateway throws: redisAnswered() false for unreachable, true for an error reply.
     */

    /** The next {@code calls} calls fail as if Redis could not be reached (a timeout, a lost connection). */
    public synchronized void failNext(int calls) {
        inject(false, calls, false);
    }

    /** The next {@code calls} calls fail with an error reply: Redis is there but refuses. */
    public synchronized void failNextWithErrorReply(int calls) {
        inject(false, calls, true);
    }

    /** Every call fails as if Redis could not be reached, until {@link #recover()}. */
    public synchronized void failAll() {
        inject(true, 0, false);
    }

    private void inject(boolean all, int next, boolean answered) {
        if (next < 0) {
            throw new IllegalArgumentException("calls must be 0 or more, but was " + next);
        }
        failing = all;
        failuresLeft = next;
        errorReplies = answered;
    }

    /** Ends all injected failures: calls are answered again. */
    public synchronized void recover() {
        inject(false, 0, false);
    }

    /**
     * Runs {@code action} inside the next call, after it is counted and before it is answered: a
     * way to act while a call is in flight (say, while a breaker's probe is out) without threads.
     */
    public synchronized void duringNextCall(Runnable action) {
        duringNextCall = action;
    }

    /** How many calls of a kind reached this gateway, failed ones included. */
    public synchronized long calls(Call kind) {
        return calls.getOrDefault(kind, 0L);
    }

    /** How many calls of any kind reached this gateway. */
    public synchronized long calls() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether {@link #close()} was called. */
    public synchronized boolean closed() {
        return closed;
    }

    /** A counter's value, or 0 when absent or expired: for assertions. */
    public synchronized long count(String key) {
        Counter counter = live(key);
        return counter == null ? 0 : counter.count;
    }

    // ---- the seam ----

    @Override
    public synchronized List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.sha1().equals(OVERRIDES_SHA1) && (args.get(0).equals("read") || args.get(0).equals("reset"))) {
            // A limiter reads its live overrides every couple of seconds: here there are never any, and
            // the read is neither counted nor failed, so the tests of decisions count decisions only.
            // A client reset is an EVAL that counts one more in the mark. LiveOverridesIT and
            // OverridesParityIT test overrides against real Redis.
            if (args.get(0).equals("reset")) {
                begin(Call.EVAL);
                count(keys.get(1), 1, Long.parseLong(args.get(2)));
            } else if (args.size() > 5 && live(keys.get(1)) == null) {
                // A read makes the mark when absent, as the script does: a Redis that lost it shows a new one.
                count(keys.get(1), Long.parseLong(args.get(5)), Long.parseLong(args.get(4)));
            }
            Counter mark = live(keys.get(1));
            return java.util.Arrays.asList(-1L, -1L, mark == null ? -1L : mark.count,
                    mark == null ? -2L : mark.expiresAtMillis - nanos / NANOS_PER_MILLI);
        }
        if (script.sha1().equals(CLIENT_RESET_SHA1)) {
            // A client reset over scripts: its keys deleted, as delete() does (the guard it leaves is read by
            // refund.lua only, which this gateway does not run).
            delete(keys.subList(0, keys.size() - 1));
            return java.util.Collections.singletonList((long) keys.size() - 1);
        }
        begin(Call.EVAL);
        if (!script.sha1().equals(FIXED_WINDOW_SHA1)) {
            throw new UnsupportedOperationException("InMemoryRedisGateway models fixed-window.lua only, not " + script
                    + "; test other scripts against real Redis");
        }
        if (keys.isEmpty() || args.size() != 1 + 3 * keys.size()
                || !(args.get(0).equals("0") || args.get(0).equals("1"))) {
            throw new IllegalArgumentException("fixed-window.lua takes ARGV {'0'|'1', then per key: permits, limit, "
                    + "window_us}, but got keys " + keys + " and ARGV " + args);
        }
        boolean consume = args.get(0).equals("1");
        long now = nowMillis();
        // check(): read every rule before writing any, so that several rules are all or nothing.
        long[] counts = new long[keys.size()];
        long[] pttls = new long[keys.size()];
        boolean allAllowed = true;
        for (int i = 0; i < keys.size(); i++) {
            Counter counter = live(keys.get(i));
            counts[i] = counter == null ? 0 : counter.count;
            pttls[i] = counter == null ? -2 : counter.expiresAtMillis - now;
            allAllowed &= counts[i] + permits(args, i) <= limit(args, i);
        }
        List<Long> reply = new ArrayList<>(1 + 4 * keys.size());
        reply.add(allAllowed ? 1L : 0L);
        for (int i = 0; i < keys.size(); i++) {
            long permits = permits(args, i);
            long limit = limit(args, i);
            long left = pttls[i] >= 0 ? (pttls[i] + 1) * 1000 : 0;
            boolean allowed = counts[i] + permits <= limit;
            long remaining = limit - counts[i];
            long reset = left;
            // commit(): only when every rule allows, and only when consuming.
            if (allAllowed && consume) {
                remaining -= permits;
                if (pttls[i] < 0) {
                    long windowMicros = Long.parseLong(args.get(3 + 3 * i));
                    counters.put(keys.get(i), new Counter(permits, now + ceilDiv(windowMicros, 1000)));
                    reset = windowMicros;
                } else {
                    counters.get(keys.get(i)).count += permits;
                }
            }
            reply.add(allowed ? 1L : 0L);
            reply.add(remaining);
            reply.add(allowed ? 0L : left);
            reply.add(reset);
        }
        return reply;
    }

    @Override
    public synchronized long[] incrementInWindow(String key, long permits, long windowMillis) {
        if (!(key.endsWith(":client-reset") && permits != 1)) {
            // The overrides' read makes the client-reset mark when absent (at a number it drew; a reset
            // counts 1): part of that read, neither counted nor failed, as the read is not.
            begin(Call.INCREMENT_IN_WINDOW);
        }
        return count(key, permits, windowMillis);
    }

    /**
     * The counter and its PTTL. The overrides' client-reset mark ({@code ...:client-reset}) is read
     * with them every couple of seconds: that read is neither counted nor failed, as theirs is not.
     */
    @Override
    public synchronized long[] readWindow(String key) {
        if (!key.endsWith(":client-reset")) {
            begin(Call.READ_WINDOW);
        }
        Counter counter = live(key);
        return counter == null ? new long[] {0, -2} : new long[] {counter.count, counter.expiresAtMillis - nowMillis()};
    }

    /** Not modelled: the transaction transport's sliding log runs against a real Redis only. */
    @Override
    public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
        throw new UnsupportedOperationException("sliding-log over transport transaction is tested on a real Redis");
    }

    /**
     * DEL, HSET and HMGET of a hash. A read alone is neither counted nor failed, as overrides.lua's
     * read is not: a limiter under transport=transaction reads its overrides every couple of seconds,
     * and the tests of decisions count decisions only. Writes are counted as {@link Call#HASH_WRITE}
     * and fail as injected.
     */
    @Override
    public synchronized List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs,
            List<String> fields) {
        if (pairs.size() % 2 != 0 || fields.isEmpty()) {
            throw new IllegalArgumentException("pairs must be fields and values in turn and a field must be read, but "
                    + "were " + pairs + " and " + fields);
        }
        if (delete || !pairs.isEmpty()) {
            begin(Call.HASH_WRITE);
        }
        if (delete) {
            hashes.remove(key);
        }
        if (!pairs.isEmpty()) {
            Map<String, byte[]> hash = hashes.computeIfAbsent(key, k -> new HashMap<>());
            for (int i = 0; i < pairs.size(); i += 2) {
                hash.put(pairs.get(i), pairs.get(i + 1).getBytes(StandardCharsets.UTF_8));
            }
        }
        Map<String, byte[]> hash = hashes.getOrDefault(key, new HashMap<>());
        List<byte[]> values = new ArrayList<>(fields.size());
        for (String field : fields) {
            byte[] value = hash.get(field);
            values.add(value == null ? null : value.clone());
        }
        return values;
    }

    @Override
    public synchronized void delete(List<String> keys) {
        begin(Call.DELETE);
        keys.forEach(counters::remove);
        keys.forEach(hashes::remove);
    }

    @Override
    public boolean supportsTransactions() {
        return true;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "InMemoryRedisGateway";
    }

    // ---- helpers ----

    /** Counts the call, then runs the in-flight action and fails it if a failure is due. */
    private void begin(Call kind) {
        if (closed) {
            throw new IllegalStateException("InMemoryRedisGateway was closed and was called again: " + kind);
        }
        calls.merge(kind, 1L, Long::sum);
        Runnable action = duringNextCall;
        duringNextCall = null;
        if (action != null) {
            action.run();
        }
        if (failing || failuresLeft > 0) {
            failuresLeft = Math.max(0, failuresLeft - 1);
            if (errorReplies) {
                throw new RedisFailureException("InMemoryRedisGateway answered " + kind + " with an injected error",
                        null, true);
            }
            throw new RedisFailureException("InMemoryRedisGateway failed " + kind + " (injected)", null);
        }
    }

    /** SET NX PX and INCRBY of a counter: {count after, PTTL}. */
    private long[] count(String key, long permits, long windowMillis) {
        long now = nowMillis();
        Counter counter = live(key);
        if (counter == null) {
            counter = new Counter(0, now + windowMillis);
            counters.put(key, counter);
        }
        counter.count += permits;
        return new long[] {counter.count, counter.expiresAtMillis - now};
    }

    /** The counter under {@code key}, dropped and null once Redis would have expired it. */
    private Counter live(String key) {
        Counter counter = counters.get(key);
        if (counter != null && nowMillis() > counter.expiresAtMillis) {
            counters.remove(key);
            return null;
        }
        return counter;
    }

    private long nowMillis() {
        return Math.floorDiv(nanos, NANOS_PER_MILLI);
    }

    private static long permits(List<String> args, int rule) {
        return Long.parseLong(args.get(1 + 3 * rule));
    }

    private static long limit(List<String> args, int rule) {
        return Long.parseLong(args.get(2 + 3 * rule));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
