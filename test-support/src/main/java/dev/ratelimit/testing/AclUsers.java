package dev.ratelimit.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * Redis ACL users for tests that need a user of their own: one that may not run scripts, one per
 * server so that {@code CLIENT LIST} tells whose connections are whose. Each may touch only the
 * keys under the extension's key prefix.
 */
public final class AclUsers {
    private AclUsers() {
    }

    /**
     * Creates {@code user} (or resets it) with {@code password}, the keys under the extension's key
     * prefix, and {@code commandRules} such as {@code "+@all", "-@scripting"}.
     */
    public static void create(RedisServerExtension redis, String user, String password, String... commandRules) {
        List<String> args = new ArrayList<>(Arrays.asList("SETUSER", user, "reset", "on", ">" + password,
                "~" + redis.keyPrefix() + "*"));
        args.addAll(Arrays.asList(commandRules));
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            admin.sendCommand(Protocol.Command.ACL, args.toArray(new String[0]));
        }
    }

    /** Deletes {@code user}; its connections are closed by Redis. */
    public static void drop(RedisServerExtension redis, String user) {
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            admin.sendCommand(Protocol.Command.ACL, "DELUSER", user);
        }
    }

    /** The URI that logs in as {@code user}. */
    public static String uri(RedisServerExtension redis, String user, String password) {
        return "redis://" + user + ":" + password + "@" + redis.host() + ":" + redis.port();
    }
}
