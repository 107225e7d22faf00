package dev.ratelimit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.UnifiedJedis;

/**
 * Which server a test's Redis is, as the limiter must name it ({@code Redis 7.0.15},
 * {@code Valkey 9.1.2}), read from its {@code INFO server} here, apart from the library's own
 * reading, so that tests run unchanged on whichever server the build gives them.
 */
final class ServerName {
    private static final Pattern VALKEY = Pattern.compile("(?m)^valkey_version:(\\S+)");
    private static final Pattern REDIS = Pattern.compile("(?m)^redis_version:(\\S+)");

    private ServerName() {
    }

    static String of(UnifiedJedis client) {
        return of(client.info("server"));
    }

    static String of(String infoServer) {
        Matcher valkey = VALKEY.matcher(infoServer);
        if (infoServer.contains("server_name:valkey") && valkey.find()) {
            return "Valkey " + valkey.group(1);
        }
        Matcher redis = REDIS.matcher(infoServer);
        if (!redis.find()) {
            throw new AssertionError("no redis_version in INFO server: " + infoServer);
        }
        return "Redis " + redis.group(1);
    }
}
