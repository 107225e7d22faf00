package dev.ratelimit.internal.support;

import java.util.Locale;

/**
 * Which server a node is, as its {@code INFO server} says: Redis or Valkey, and which version.
 * Valkey still reports {@code redis_version:7.2.4} (for clients that check it) and says what it is
 * in {@code server_name:valkey} and {@code valkey_version}; Redis reports neither. Messages about a
 * node name it by this, so that an operator of Valkey reads about Valkey and the version that runs.
 * Immutable.
 */
public final class ServerIdentity {
    /** What Redis calls itself, and messages call a server that has not said: the settings' word ({@code redisUri}). */
    private static final String REDIS = "Redis";
    private static final String VALKEY = "Valkey";

    /** Before a node has said, or when it may not run INFO. */
    public static final ServerIdentity UNKNOWN = new ServerIdentity(REDIS, "");

    private final String product;
    private final String version;

    private ServerIdentity(String product, String version) {
        this.product = product;
        this.version = version;
    }

    /**
     * From the text of {@code INFO server} ({@code name:value} lines): Valkey when
     * {@code server_name} is {@code valkey}, with {@code valkey_version}; else Redis with
     * {@code redis_version}. A text that says neither (null, empty, another section) is
     * {@link #UNKNOWN}.
     */
    public static ServerIdentity fromInfo(String info) {
        if (info == null) {
            return UNKNOWN;
        }
        String serverName = "";
        String redisVersion = "";
        String valkeyVersion = "";
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0 || line.startsWith("#")) {
                continue;
            }
            String name = line.substring(0, colon);
            String value = line.substring(colon + 1).trim();
            if (name.equals("server_name")) {
                serverName = value;
            } else if (name.equals("redis_version")) {
                redisVersion = value;
            } else if (name.equals("valkey_version")) {
                valkeyVersion = value;
            }
        }
        if (serverName.toLowerCase(Locale.ROOT).equals("valkey")) {
            // Its redis_version is the Redis it answers as, not what runs: never shown as its version.
            return new ServerIdentity(VALKEY, valkeyVersion);
        }
        return redisVersion.isEmpty() ? UNKNOWN : new ServerIdentity(REDIS, redisVersion);
    }

    /** {@code Redis} or {@code Valkey}; {@code Redis} while unknown, the word the settings use. */
    public String product() {
        return product;
    }

    /** The version the server reports of itself, e.g. {@code 9.1.2}; empty when unknown. */
    public String version() {
        return version;
    }

    /** Whether the server said which it is: Valkey, or Redis with its version. */
    public boolean known() {
        return product.equals(VALKEY) || !version.isEmpty();
    }

    /**
     * How a message names the server: {@code Valkey 9.1.2}, {@code Redis 7.0.15}; {@code Redis}
     * while unknown, as messages said before servers were told apart.
     */
    public String name() {
        return version.isEmpty() ? product : product + " " + version;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ServerIdentity)) {
            return false;
        }
        ServerIdentity that = (ServerIdentity) other;
        return product.equals(that.product) && version.equals(that.version);
    }

    @Override
    public int hashCode() {
        return product.hashCode() * 31 + version.hashCode();
    }

    /** {@link #name()}, or {@code unknown}: what the status page and JMX show. */
    @Override
    public String toString() {
        return known() ? name() : "unknown";
    }
}
