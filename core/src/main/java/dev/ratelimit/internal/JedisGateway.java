package dev.ratelimit.internal;

import dev.ratelimit.RedisFailureException;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;

/** {@link RedisGateway} over a Jedis {@link UnifiedJedis}: standalone, Sentinel or Cluster alike. */
public final class JedisGateway implements RedisGateway {
    private final UnifiedJedis jedis;
    private final boolean owned;
    private final String description;

    /**
     * @param jedis the client to use
     * @param owned whether {@link #close()} closes the client
     * @param description where Redis is, for error messages; never holding a password
     */
    public JedisGateway(UnifiedJedis jedis, boolean owned, String description) {
        this.jedis = jedis;
        this.owned = owned;
        this.description = description;
    }

    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        try {
            Object reply;
            try {
                reply = jedis.evalsha(script.sha1(), keys, args);
            } catch (JedisNoScriptException notLoaded) {
                // Redis restarted, failed over or had SCRIPT FLUSH. Nothing ran, so running again is
                // safe; EVAL loads the script and runs it in the same round trip.
                reply = jedis.eval(script.source(), keys, args);
            }
            return toLongs(reply, script);
        } catch (JedisDataException e) {
            throw answeredWithError("running " + script, e);
        } catch (JedisException e) {
            throw failure("running " + script, e);
        }
    }

    @Override
    public long[] incrementInWindow(String key, long permits, long windowMillis) {
        try (AbstractTransaction transaction = jedis.multi()) {
            // SET NX PX creates the counter with its TTL in one command, and INCRBY keeps the TTL:
            // no moment exists where the counter lives without an expiry.
            transaction.set(key, "0", SetParams.setParams().nx().px(windowMillis));
            Response<Long> count = transaction.incrBy(key, permits);
            Response<Long> ttl = transaction.pttl(key);
            transaction.exec();
            return new long[] {count.get(), ttl.get()};
        } catch (JedisException e) {
            throw failure("counting in a MULTI/EXEC transaction", e);
        }
    }

    @Override
    public long[] readWindow(String key) {
        try (AbstractTransaction transaction = jedis.multi()) {
            Response<String> count = transaction.get(key);
            Response<Long> ttl = transaction.pttl(key);
            transaction.exec();
            return new long[] {count.get() == null ? 0 : Long.parseLong(count.get()), ttl.get()};
        } catch (JedisException | NumberFormatException e) {
            throw failure("reading a counter in a MULTI/EXEC transaction", e);
        }
    }

    @Override
    public void delete(List<String> keys) {
        try {
            jedis.del(keys.toArray(new String[0]));
        } catch (JedisException e) {
            throw failure("deleting keys", e);
        }
    }

    @Override
    public void close() {
        if (owned) {
            jedis.close();
        }
    }

    /** Redis is there but refused: a script error, a read-only replica, a wrong type. */
    private RedisFailureException answeredWithError(String action, JedisDataException cause) {
        return new RedisFailureException("Redis at " + description + " refused " + action + ": " + cause.getMessage(),
                cause, true);
    }

    private RedisFailureException failure(String action, Exception cause) {
        return new RedisFailureException("Redis at " + description + " failed " + action + ": " + cause.getMessage(),
                cause);
    }

    private List<Long> toLongs(Object reply, LuaScript script) {
        if (!(reply instanceof List)) {
            throw new RedisFailureException("Redis at " + description + " answered " + script + " with " + reply
                    + " instead of an array", null);
        }
        List<?> values = (List<?>) reply;
        List<Long> longs = new ArrayList<>(values.size());
        for (Object value : values) {
            longs.add((Long) value);
        }
        return longs;
    }

    @Override
    public String toString() {
        return description;
    }
}
