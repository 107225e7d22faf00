package dev.ratelimit.internal.redis;

import static dev.ratelimit.internal.redis.Replies.text;

import dev.ratelimit.internal.support.ServerIdentity;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What one Redis master said about evicting keys, for {@link EvictionWatch}: {@code maxmemory} and
 * {@code maxmemory_policy} from {@code INFO memory}, {@code evicted_keys} from {@code INFO stats},
 * and which server it is ({@link ServerIdentity}: Redis or Valkey) from {@code INFO server}, so that
 * what is said about the master names it truly. Read with INFO rather than {@code CONFIG GET}, which
 * managed services block; one section per INFO, as Redis 6.2 takes no more, all sent at once on one
 * connection: one round trip. Or why the master could not say: it refused INFO (a user without the
 * right; then which server it is stays unknown too), or it was not reached. Immutable.
 */
final class MemoryReading {
    /** How the reading went. */
    public enum Outcome {
        /** Redis answered INFO; a field it did not report is unknown. */
        READ,
        /** Redis refused INFO, e.g. NOPERM: asking again will not help until someone changes the user. */
        REFUSED,
        /** Redis was not reached, or not asked while its circuit breaker is not closed. */
        UNREACHED
    }

    /** The master's address, {@code host:port}: what evictions are counted by. */
    final String node;
    /** Where it is, for messages: the store's location, and the node when there are several. */
    final String where;
    final Outcome outcome;
    /** Bytes; 0 for no limit, -1 when not reported. */
    final long maxmemory;
    /** As reported; empty when not reported. */
    final String policy;
    /** Since the master started (or its statistics were reset); -1 when not reported. */
    final long evictedKeys;
    /** Why it was refused or not reached; null when read. */
    final String problem;
    /** Which server it is; {@link ServerIdentity#UNKNOWN} unless read. */
    final ServerIdentity server;

    private MemoryReading(String node, String where, Outcome outcome, long maxmemory, String policy, long evictedKeys,
            String problem, ServerIdentity server) {
        this.node = Objects.requireNonNull(node, "node");
        this.where = Objects.requireNonNull(where, "where");
        this.outcome = outcome;
        this.maxmemory = maxmemory;
        this.policy = policy;
        this.evictedKeys = evictedKeys;
        this.problem = problem;
        this.server = Objects.requireNonNull(server, "server");
    }

    /** From the text of {@code INFO memory}, {@code INFO stats} and {@code INFO server} (null when refused). */
    static MemoryReading of(String node, String where, String memory, String stats, String server) {
        return new MemoryReading(node, where, Outcome.READ, number(field(memory, "maxmemory")),
                field(memory, "maxmemory_policy"), number(field(stats, "evicted_keys")), null,
                ServerIdentity.fromInfo(server));
    }

    static MemoryReading refused(String node, String where, String problem) {
        return new MemoryReading(node, where, Outcome.REFUSED, -1, "", -1, problem, ServerIdentity.UNKNOWN);
    }

    static MemoryReading unreached(String node, String where, String problem) {
        return new MemoryReading(node, where, Outcome.UNREACHED, -1, "", -1, problem, ServerIdentity.UNKNOWN);
    }

    /**
     * Sends {@code INFO memory} and {@code INFO stats} (and {@code INFO replication} when
     * {@code mastersOnly}), then {@code INFO server}, on the connection at once and reads the
     * replies: one round trip. Any but the last refused makes the reading refused; {@code INFO server}
     * refused alone (a user granted only the sections the limiter needed before, as ACL first-argument
     * rules allow: {@code +info|memory +info|stats}) leaves only which server it is unknown. Null for a replica
     * when {@code mastersOnly}; a JedisException when the node cannot be reached.
     */
    static MemoryReading read(String node, String where, Connection connection, boolean mastersOnly) {
        connection.sendCommand(info("memory"));
        connection.sendCommand(info("stats"));
        if (mastersOnly) {
            connection.sendCommand(info("replication"));
        }
        connection.sendCommand(info("server"));
        List<Object> replies = connection.getMany(mastersOnly ? 4 : 3);
        int server = replies.size() - 1;
        for (Object reply : replies.subList(0, server)) {
            if (reply instanceof JedisDataException) {
                return refused(node, where, ((JedisDataException) reply).getMessage());
            }
        }
        if (mastersOnly && !"master".equals(field(text(replies.get(2)), "role"))) {
            return null;
        }
        // INFO server refused is no reason to refuse the rest: the server stays unknown.
        Object serverInfo = replies.get(server);
        return of(node, where, text(replies.get(0)), text(replies.get(1)),
                serverInfo instanceof JedisDataException ? null : text(serverInfo));
    }

    private static CommandArguments info(String section) {
        return new CommandArguments(Protocol.Command.INFO).add(section);
    }

    /** A field of INFO's {@code name:value} lines; empty when absent. */
    static String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return "";
    }

    private static long number(String value) {
        try {
            return value.isEmpty() ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public String toString() {
        return where + ": " + (outcome == Outcome.READ ? server + ", maxmemory " + maxmemory + ", maxmemory_policy '"
                + policy + "', evicted_keys " + evictedKeys : outcome + " (" + problem + ")");
    }
}
