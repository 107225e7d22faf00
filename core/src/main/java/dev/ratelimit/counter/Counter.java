package dev.ratelimit.counter;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.StoreAccess;
import dev.ratelimit.internal.support.Arguments;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the counters share: a store, a named window, the key layout (checked once here), and the
 * writes kept in memory while Redis cannot be asked.
 */
abstract class Counter {
    /** What a write answers when Redis could not be asked and the write was kept for later. */
    static final long PENDING = -1;
    /** Writes kept during an outage unless set. */
    static final int DEFAULT_PENDING_LIMIT = 10_000;

    /** Under the name it had as CounterKeys: logging configurations name it. */
    private static final Logger log = LoggerFactory.getLogger("dev.ratelimit.counter.CounterKeys");

    /** The store's gateway, looked up once: every counter call goes through it. */
    private final RedisGateway gateway;
    private final String name;
    private final String keyPrefix;
    private final Duration window;
    private final int pendingLimit;
    private final List<RateLimitListener> listeners;
    private final Deque<Pending> pending = new ArrayDeque<>();
    private final ReentrantLock flushing = new ReentrantLock();
    private final AtomicLong dropped = new AtomicLong();
    /** Names this instance's writes in Redis: random, so two nodes (or a restart) never share it. */
    private final String writer = Long.toString(ThreadLocalRandom.current().nextLong(1L << 52, 1L << 53),
            Character.MAX_RADIX);
    private final AtomicLong writeIds = new AtomicLong();
    private volatile int pendingCount;

    /** A write that waits for Redis. */
    private static final class Pending {
        final LuaScript script;
        final String key;
        final List<String> args;

        Pending(LuaScript script, String key, List<String> args) {
            this.script = script;
            this.key = key;
            this.args = args;
        }
    }

    /** @throws IllegalArgumentException for a bad name, prefix, window or pending limit */
    Counter(CounterBuilder<?> settings) {
        RedisKeys.checkKeyPart("name", settings.name, 1, RateLimiter.MAX_NAME_LENGTH);
        RedisKeys.checkKeyPart("keyPrefix", settings.keyPrefix, 0, RateLimiter.MAX_NAME_LENGTH);
        Arguments.checkWindow(settings.window);
        if (settings.pendingLimit < 0 || settings.pendingLimit > 1_000_000) {
            throw new IllegalArgumentException("pendingLimit must be between 0 and 1000000, but was "
                    + settings.pendingLimit);
        }
        this.gateway = StoreAccess.gateway(settings.store);
        this.name = settings.name;
        this.keyPrefix = settings.keyPrefix;
        this.window = settings.window;
        this.pendingLimit = settings.pendingLimit;
        this.listeners = Immutable.copyOf(settings.listeners);
    }

    String name() {
        return name;
    }

    Duration window() {
        return window;
    }

    /** The Redis key of a client: {@code <keyPrefix><name>:{<key>}}. */
    public String redisKey(String key) {
        return RedisKeys.key(keyPrefix, name, RedisKeys.checkClientKey("key", key));
    }

    /** Forgets the client: its events or items. */
    public void clear(String key) {
        gateway.delete(Immutable.listOf(redisKey(key)));
    }

    /** Runs a counter script on the client's key, after any writes kept from an outage; the scripts answer {count}. */
    long eval(LuaScript script, String key, List<String> args) {
        return run(script, redisKey(key), args);
    }

    private long run(LuaScript script, String redisKey, List<String> args) {
        flushPending();
        return gateway.eval(script, Immutable.listOf(redisKey), args).get(0);
    }

    /**
     * Like {@link #write}, for a script that counts each write once: the arguments get this
     * instance's writer name and a new write id, which a replay sends again, so that a write that
     * timed out after it ran is not counted twice when it is sent again.
     */
    long writeOnce(LuaScript script, String key, List<String> args) {
        List<String> named = new ArrayList<>(args.size() + 3);
        named.addAll(args);
        named.add(writer);
        named.add(Long.toString(writeIds.incrementAndGet(), Character.MAX_RADIX));
        List<String> replay = new ArrayList<>(named);
        replay.add("replay");
        return write(script, key, named, replay);
    }

    /**
     * Like {@link #eval} for a write; when Redis cannot be reached the write is kept in memory
     * (the oldest dropped past the limit) and sent, in order, before the next call that reaches
     * Redis, and {@link #PENDING} is answered. A kept write may have run (a timeout after it was
     * sent): only scripts that recognise a write sent twice ({@link #writeOnce}) count it once.
     */
    long write(LuaScript script, String key, List<String> args) {
        return write(script, key, args, args);
    }

    /** @param replayArgs the arguments to send when the write is sent again after an outage */
    private long write(LuaScript script, String key, List<String> args, List<String> replayArgs) {
        String redisKey = redisKey(key);
        try {
            return run(script, redisKey, args);
        } catch (RedisFailureException e) {
            if (e.redisAnswered() || pendingLimit == 0) {
                throw e;
            }
            keep(new Pending(script, redisKey, replayArgs));
            return PENDING;
        }
    }

    /** Writes kept in memory, waiting for Redis to answer again. */
    public int pendingWrites() {
        return pendingCount;
    }

    private void keep(Pending write) {
        boolean drop;
        synchronized (pending) {
            drop = pending.size() >= pendingLimit;
            if (drop) {
                pending.pollFirst();
            }
            pending.addLast(write);
            pendingCount = pending.size();
        }
        if (drop) {
            long total = dropped.incrementAndGet();
            for (RateLimitListener listener : listeners) {
                try {
                    listener.onCounterWritesDropped(name, 1, total);
                } catch (RuntimeException e) {
                    log.warn("Counter listener {} failed on counter '{}'", listener, name, e);
                }
            }
        }
    }

    /** Sends the kept writes in order; stops at the first failure, keeping it and the rest. */
    private void flushPending() {
        if (pendingCount == 0 || !flushing.tryLock()) {
            return;
        }
        try {
            while (true) {
                Pending next;
                synchronized (pending) {
                    next = pending.peekFirst();
                }
                if (next == null) {
                    return;
                }
                try {
                    gateway.eval(next.script, Immutable.listOf(next.key), next.args);
                } catch (RedisFailureException e) {
                    if (!e.redisAnswered()) {
                        throw e;
                    }
                    // Redis refuses this one (an error reply): it would block every write after it.
                    log.warn("Counter '{}' dropped a kept write that Redis refused: {}", name, e.getMessage());
                }
                synchronized (pending) {
                    pending.remove(next);
                    pendingCount = pending.size();
                }
            }
        } finally {
            flushing.unlock();
        }
    }
}
