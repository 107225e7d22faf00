package dev.ratelimit.internal.engine;

import dev.ratelimit.Transport;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.support.Immutable;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * How {@link LiveOverrides} reads and writes its hash and the client-reset mark beside it, chosen
 * from the limiter's transport: {@code overrides.lua} for {@code lua}, one round trip each; for
 * {@code transaction}, whose Redis users may not run scripts, the script's commands without it,
 * two round trips each (the hash, then the mark).
 *
 * <p>Both take the script's arguments: {@code op} 'read', 'set' (with {@code field}, {@code value}
 * and {@code origin}), 'clear', or 'reset' (the mark's TTL in milliseconds as {@code value}), and
 * answer the hash and the mark as the operation left them. Without the script, a set is {@code
 * MULTI, HSET key field value origin <origin>, HMGET, EXEC}, a clear {@code MULTI, DEL, HMGET,
 * EXEC}, a read a lone {@code HMGET}; each then reads the mark as the window counter it is ({@code
 * GET} and {@code PTTL}), and a reset counts one more in it first (SET NX PX, INCRBY), then reads the
 * hash. Java reads the fields as the script does: a limit only when written as Java writes one
 * ('-'? digits, below 2^53), enforce only as 'true' or 'false', the origin's first 256 bytes. The
 * hash has no TTL either way (the script sets none: operator state outlives restarts); the mark
 * has the one it was created with. A key that is no hash fails both with WRONGTYPE, unless it is
 * cleared. OverridesParityIT holds the two to the same keys and answers.
 */
abstract class OverridesExchange {
    /** The fields the script reads, in its order. */
    static final List<String> FIELDS = Immutable.listOf("limit", "enforce", "origin");
    /** The origin's bytes the script answers at most. */
    static final int ORIGIN_BYTES = 256;
    /** The script's answer for a field that is set but cannot be read. */
    static final long UNREADABLE = -2;
    /** Integers from here up (and down from its negation) are not exact in Lua's doubles. */
    private static final BigInteger EXACT = BigInteger.ONE.shiftLeft(53);

    /** The hash and the mark as an exchange left them: {@link LiveOverrides}' state, swapped whole. */
    static final class State {
        static final State NONE = new State(-1, -1, -1, -2, new byte[0]);

        /** -1 when none, {@link OverridesExchange#UNREADABLE} when the stored text is not a whole number. */
        final long limit;
        /** Null when none. */
        final Boolean enforce;
        /** Whether the stored enforce is neither true nor false (then it counts as none). */
        final boolean enforceUnreadable;
        final String origin;
        /**
         * The client-reset mark, -1 when none: not an override, only a count that changes with
         * every reset (and when it expires), so that each node forgets the denials it remembers.
         */
        final long clientReset;
        /** The mark's PTTL in milliseconds when read, -2 when none. */
        final long clientResetTtl;

        /**
         * What the script answers: {limit or -1, enforce as 1, 0 or -1, client-reset or -1, its PTTL or -2,
         * then the origin's bytes}.
         */
        State(long limit, long enforce, long clientReset, long clientResetTtl, byte[] origin) {
            this.limit = limit;
            this.enforce = enforce < 0 ? null : enforce == 1;
            this.enforceUnreadable = enforce == UNREADABLE;
            this.origin = new String(origin, StandardCharsets.UTF_8);
            this.clientReset = clientReset;
            this.clientResetTtl = clientResetTtl;
        }

        /** Whether the overrides are the same; the client-reset mark is not one. */
        boolean sameAs(State other) {
            return limit == other.limit && Objects.equals(enforce, other.enforce)
                    && enforceUnreadable == other.enforceUnreadable && origin.equals(other.origin);
        }
    }

    /** Where the exchange goes, whichever way. */
    final RedisGateway gateway;

    OverridesExchange(RedisGateway gateway) {
        this.gateway = gateway;
    }

    static OverridesExchange of(Transport transport, RedisGateway gateway) {
        return transport == Transport.LUA ? new Scripted(gateway) : new Transacted(gateway);
    }

    /**
     * Does what {@code op} says to the hash at {@code key} or the mark at {@code markKey} (in the
     * hash's slot), then reads both; a mark absent is made at {@code markStart} (a number no other
     * node's making is likely to pick, so that every node tells the new mark from the old).
     *
     * @throws dev.ratelimit.RedisFailureException if Redis cannot be asked or refuses
     */
    abstract State exchange(String key, String markKey, String op, String field, String value,
            String origin, long markStart);

    /**
     * How long a mark created by a call that is not a reset lives (overrides.lua: a Redis that lost
     * the mark shows every node a new one).
     */
    static final String MARK_MILLIS = Long.toString(LiveOverrides.MARK_LIFETIME.toMillis());

    /** {@code overrides.lua}, by EVALSHA. */
    static final class Scripted extends OverridesExchange {
        private static final LuaScript SCRIPT = LuaScript.load("overrides");

        Scripted(RedisGateway gateway) {
            super(gateway);
        }

        @Override
        State exchange(String key, String markKey, String op, String field, String value,
                String origin, long markStart) {
            List<Long> reply = gateway.eval(SCRIPT, Arrays.asList(key, markKey),
                    Arrays.asList(op, field, value, origin, MARK_MILLIS, Long.toString(markStart)));
            byte[] originBytes = new byte[reply.size() - 4];
            for (int i = 0; i < originBytes.length; i++) {
                originBytes[i] = reply.get(i + 4).byteValue();
            }
            return new State(reply.get(0), reply.get(1), reply.get(2), reply.get(3), originBytes);
        }
    }

    /** The script's commands in MULTI/EXEC (a read alone: one HMGET), then the mark's; the reading done here. */
    static final class Transacted extends OverridesExchange {
        Transacted(RedisGateway gateway) {
            super(gateway);
        }

        @Override
        State exchange(String key, String markKey, String op, String field, String value,
                String origin, long markStart) {
            long[] mark = "reset".equals(op) ? gateway.incrementInWindow(markKey, 1, Long.parseLong(value)) : null;
            List<String> pairs = "set".equals(op) ? Arrays.asList(field, value, "origin", origin)
                    : Collections.<String>emptyList();
            List<byte[]> fields = gateway.hashInTransaction(key, "clear".equals(op), pairs, FIELDS);
            if (mark == null) {
                long[] counter = gateway.readWindow(markKey);
                // An absent mark, or anything but a counter under its key (PTTL -2), is made at markStart,
                // as the script makes it: a Redis that lost it shows every node a new mark.
                mark = counter[1] == -2 ? gateway.incrementInWindow(markKey, markStart, Long.parseLong(MARK_MILLIS)) : counter;
            }
            byte[] origins = fields.get(2);
            return new State(limit(fields.get(0)), enforce(fields.get(1)), mark[0], mark[1],
                    origins == null ? new byte[0] : Arrays.copyOf(origins, Math.min(origins.length, ORIGIN_BYTES)));
        }
    }

    /** As the script reads the limit field: -1 when absent, {@link #UNREADABLE} unless '-'? digits below 2^53. */
    static long limit(byte[] text) {
        if (text == null) {
            return -1;
        }
        int start = text.length > 0 && text[0] == '-' ? 1 : 0;
        if (start == text.length) {
            return UNREADABLE;
        }
        for (int i = start; i < text.length; i++) {
            if (text[i] < '0' || text[i] > '9') {
                return UNREADABLE;
            }
        }
        BigInteger value = new BigInteger(new String(text, StandardCharsets.US_ASCII));
        return value.abs().compareTo(EXACT) < 0 ? value.longValueExact() : UNREADABLE;
    }

    /** As the script reads the enforce field: 1 for 'true', 0 for 'false', -1 when absent, else {@link #UNREADABLE}. */
    static long enforce(byte[] text) {
        if (text == null) {
            return -1;
        }
        String value = new String(text, StandardCharsets.ISO_8859_1);
        return "true".equals(value) ? 1 : "false".equals(value) ? 0 : UNREADABLE;
    }
}
