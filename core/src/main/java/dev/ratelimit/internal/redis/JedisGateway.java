package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * {@link RedisGateway} over a caller's Jedis {@link UnifiedJedis} ({@code RedisStore.wrap}):
 * standalone, Sentinel or Cluster alike, through the client's own routing and retries. Stores that
 * make their own connections use {@link NodeGateway}, which keeps health per node.
 */
public final class JedisGateway extends TransactionGateway {
    /**
     * How long a transaction decision waits for its turn, and keeps trying while other nodes change
     * the same log: the caller's client has its own timeouts, which this gateway cannot read.
     */
    private static final Duration TRANSACTION_PATIENCE = Duration.ofSeconds(1);

    private final UnifiedJedis jedis;
    private final String description;

    /** @param description where Redis is, for error messages; never holding a password */
    public JedisGateway(UnifiedJedis jedis, String description) {
        super(TRANSACTION_PATIENCE, description);
        this.jedis = jedis;
        this.description = description;
    }

    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        return call(script.running,
                () -> Replies.longs(followingRedirects(() -> evalOrLoad(script, keys, args)), description, script));
    }

    /**
     * Runs a call, turning whatever the client throws into a {@link RedisFailureException}: the
     * failure policy must decide, never a 500. An error reply (a script error, WRONGTYPE, READONLY,
     * a value that is not a number) means Redis answered; anything else means it was not reached.
     */
    private <T> T call(String action, Supplier<T> body) {
        try {
            return body.get();
        } catch (RedisFailureException e) {
            throw e;
        } catch (JedisDataException | NumberFormatException e) {
            throw new RedisFailureException("Redis at " + description + " refused " + action + ": " + e.getMessage(), e,
                    true);
        } catch (RuntimeException e) {
            if (redirected(e)) {
                // Redis is there; the cluster is moving slots. Not a reason to stop calling it.
                throw new RedisFailureException("Redis at " + description + " redirected " + action
                        + " again and again: " + e.getMessage(), e, true);
            }
            dropIdleConnections();
            throw new RedisFailureException("Redis at " + description + " failed " + action + ": "
                    + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
        }
    }

    private Object evalOrLoad(LuaScript script, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(script.sha1(), keys, args);
        } catch (JedisNoScriptException notLoaded) {
            // Redis restarted, failed over or had SCRIPT FLUSH. Nothing ran, so running again is
            // safe; EVAL loads the script and runs it in the same round trip.
            return jedis.eval(script.source(), keys, args);
        }
    }

    /** Pauses before following a redirect again: the slot map is being renewed by another thread. */
    private static final long[] REDIRECT_PAUSES_MILLIS = {0, 2, 5, 10};

    /**
     * Runs a call, and again while Redis Cluster answers MOVED or ASK (a few times, with short
     * pauses): the node refused, nothing ran, and the client renews its slot map, so a later try
     * reaches the right node. Jedis renews the map under a try-lock, so a thread that lost the race
     * may need a moment. No other failure is retried: after a timeout the call may have run.
     */
    private static <T> T followingRedirects(Supplier<T> call) {
        for (int attempt = 0; ; attempt++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (!redirected(e) || attempt == REDIRECT_PAUSES_MILLIS.length) {
                    throw e;
                }
                Durations.pause(REDIRECT_PAUSES_MILLIS[attempt]);
            }
        }
    }

    private static boolean redirected(Throwable e) {
        if (e == null) {
            return false;
        }
        if (e instanceof JedisRedirectionException) {
            return true;
        }
        for (Throwable suppressed : e.getSuppressed()) {
            if (redirected(suppressed)) {
                return true;
            }
        }
        return e.getCause() != e && redirected(e.getCause());
    }

    /**
     * Redis could not be reached: whatever idles in the pools may predate a restart, and would fail
     * one decision each. Only the clients that show their pools can be helped.
     */
    private void dropIdleConnections() {
        try {
            if (jedis instanceof RedisClient) {
                ((RedisClient) jedis).getPool().clear();
            } else if (jedis instanceof RedisClusterClient) {
                for (ConnectionPool pool : ((RedisClusterClient) jedis).getClusterNodes().values()) {
                    pool.clear();
                }
            }
        } catch (RuntimeException ignored) {
            // a closed pool: nothing idles there
        }
    }

    /** Each session in a transaction of the client's, on a pooled connection of its own. */
    @Override
    <T> T inSession(String key, String action, Function<WatchedSession, T> exchange) {
        return call(action, () -> {
            try (AbstractTransaction transaction = jedis.transaction(false)) {
                return exchange.apply(WatchedSession.over(transaction, key));
            }
        });
    }

    @Override
    public void delete(List<String> keys) {
        call("deleting keys", () -> followingRedirects(() -> jedis.del(keys.toArray(new String[0]))));
    }

    /**
     * Best effort, as far as the caller's client shows its nodes: a {@code RedisClusterClient}'s
     * nodes that say they are masters (its list of nodes holds the replicas too), and any other client
     * (a {@code RedisClient}, a {@code RedisSentinelClient}) through its own routing, which sends INFO
     * to the master.
     */
    @Override
    public List<MemoryReading> readMemory() {
        if (jedis instanceof RedisClusterClient) {
            List<MemoryReading> readings = new ArrayList<>();
            for (Map.Entry<String, ConnectionPool> node : ((RedisClusterClient) jedis).getClusterNodes().entrySet()) {
                String where = description + " (node " + node.getKey() + ")";
                try (Connection connection = node.getValue().getResource()) {
                    MemoryReading reading = MemoryReading.read(node.getKey(), where, connection, true);
                    if (reading != null) {
                        readings.add(reading);
                    }
                } catch (RuntimeException unreachable) {
                    readings.add(MemoryReading.unreached(node.getKey(), where, String.valueOf(unreachable.getMessage())));
                }
            }
            return readings;
        }
        MemoryReading reading;
        try {
            // One command after another: such a client may have no pipeline (one built on a single
            // connection throws for it), and this runs every 5 minutes at most.
            reading = MemoryReading.of(description, description, jedis.info("memory"), jedis.info("stats"), serverInfo());
        } catch (JedisDataException refused) {
            reading = MemoryReading.refused(description, description, refused.getMessage());
        } catch (RuntimeException unreachable) {
            reading = MemoryReading.unreached(description, description, String.valueOf(unreachable.getMessage()));
        }
        return Collections.singletonList(reading);
    }

    /** {@code INFO server} through the caller's client, or null when refused (see {@link MemoryReading#read}). */
    private String serverInfo() {
        try {
            return jedis.info("server");
        } catch (JedisDataException refused) {
            return null;
        }
    }

    @Override
    public boolean supportsTransactions() {
        return !(jedis instanceof RedisClusterClient);
    }

    /** Leaves the caller's client open. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return description;
    }
}
