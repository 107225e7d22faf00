package dev.ratelimit.internal.testkit;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redis.InJvmTransactions;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway of {@code test-only-redis://<name>}: the limiter's calls answered by one
 * {@link InJvmRedis}, JVM-wide per name, so that a test and the webapp under test (which opens its
 * store from {@code redisUri}) meet the same Redis. The core finds this class by name
 * ({@code TestOnlyRedisLink}) through its public static factories {@link #gateway} and
 * {@link #underTest}. Calls are serialised by the engine's one lock, as Redis runs one command or
 * script at a time; closing does nothing, as the Redis lives as long as the JVM.
 */
public final class TestOnlyGateway implements RedisGateway {
    private static final Map<String, TestOnlyGateway> BY_NAME = new ConcurrentHashMap<>();
    /** JUnit extensions and rules running now, JVM-wide. */
    private static final AtomicInteger RUNNING = new AtomicInteger();
    /**
     * How far the clock moves at a client's reset: a real Redis never answers a reset and the next
     * write in one microsecond, and the scripts rely on it (refund.lua tells an admission taken before
     * a reset from one taken after by its microsecond). This clock stands still unless moved, so
     * without it a give-back from before a reset would land in the fresh state, and one from after be lost.
     */
    private static final long RESET_APART_NANOS = 1_000;
    /**
     * How far the clock moves at a flush: as long as a Redis takes to restart. A fixed window's
     * give-back finds its window by the window's end, to within 10 ms (refund.lua): a window begun
     * after the flush must end later than that, or a give-back from before would land in it.
     */
    private static final long FLUSH_APART_NANOS = 20_000_000;
    private static final String CLIENT_RESET_SHA1 = LuaScript.load("client-reset").sha1();

    private final String name;
    private final InJvmRedis redis = new InJvmRedis(InJvmRedis.START_NANOS);
    private final List<WeakReference<Runnable>> onFlush = new ArrayList<>();
    /** Whether test code asked for this Redis through the kit's API: then it is a test's, and no ERROR is due. */
    private volatile boolean touchedByTest;

    private TestOnlyGateway(String name) {
        this.name = name;
    }

    /** The gateway of the Redis named {@code name}, made on first use: the core's factory. */
    public static TestOnlyGateway gateway(String name) {
        return BY_NAME.computeIfAbsent(name, TestOnlyGateway::new);
    }

    /** Whether a test is using that Redis: a kit extension or rule is running, or test code asked for it by name. */
    public static Boolean underTest(String name) {
        return RUNNING.get() > 0 || gateway(name).touchedByTest;
    }

    /** The gateway for the kit's API: marks the Redis as a test's. */
    public static TestOnlyGateway forTest(String name) {
        TestOnlyGateway gateway = gateway(name);
        gateway.touchedByTest = true;
        return gateway;
    }

    /** A kit extension or rule starts running. */
    public static void testStarts() {
        RUNNING.incrementAndGet();
    }

    /** A kit extension or rule stops running. */
    public static void testEnds() {
        RUNNING.decrementAndGet();
    }

    public String name() {
        return name;
    }

    public InJvmRedis redis() {
        return redis;
    }

    /** Every key gone; then every limiter on this Redis forgets what it kept of them, before this returns. */
    public void flush() {
        List<Runnable> listeners = new ArrayList<>();
        synchronized (onFlush) {
            synchronized (redis) {
                redis.flushAll();
                redis.advance(FLUSH_APART_NANOS);
            }
            onFlush.removeIf(ref -> ref.get() == null);
            for (WeakReference<Runnable> ref : onFlush) {
                Runnable listener = ref.get();
                if (listener != null) {
                    listeners.add(listener);
                }
            }
        }
        for (Runnable listener : listeners) {
            listener.run();
        }
    }

    @Override
    public void whenFlushed(Runnable forget) {
        synchronized (onFlush) {
            onFlush.removeIf(ref -> ref.get() == null);
            onFlush.add(new WeakReference<>(forget));
        }
    }

    @Override
    public long nanoTime() {
        return redis.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        return Math.floorDiv(redis.nanoTime(), 1_000_000L);
    }

    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        try {
            if (!script.sha1().equals(CLIENT_RESET_SHA1)) {
                return redis.eval(script.toString(), script.sha1(), script.source(), keys, args);
            }
            synchronized (redis) {
                List<Long> reply = redis.eval(script.toString(), script.sha1(), script.source(), keys, args);
                redis.advance(RESET_APART_NANOS);
                return reply;
            }
        } catch (RedisError refused) {
            throw new RedisFailureException(this + " refused running " + script + ": " + refused.getMessage(), null, true);
        }
    }

    @Override
    public long[] incrementInWindow(String key, long permits, long windowMillis) {
        return redis.incrementInWindow(key, permits, windowMillis);
    }

    @Override
    public long[] readWindow(String key) {
        return redis.readWindow(key);
    }

    @Override
    public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
        synchronized (redis) {
            return InJvmTransactions.slidingLog(redis::raw, key, permits, limit, windowMicros, consume);
        }
    }

    @Override
    public List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
        synchronized (redis) {
            return InJvmTransactions.hash(redis::raw, key, delete, pairs, fields);
        }
    }

    @Override
    public boolean supportsTransactions() {
        return true;
    }

    @Override
    public void delete(List<String> keys) {
        synchronized (redis) {
            redis.delete(keys);
            redis.advance(RESET_APART_NANOS);
        }
    }

    /** Nothing: the Redis lives as long as the JVM, for the next store of the same name. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "test-only-redis://" + name;
    }
}
