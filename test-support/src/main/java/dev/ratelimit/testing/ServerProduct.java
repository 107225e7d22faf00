package dev.ratelimit.testing;

import java.util.Locale;

/**
 * Which server an {@code INFO server} text comes from, read apart from the library's own reading so
 * that tests can hold the library to it. Valkey answers {@code redis_version:7.2.4} whatever its
 * version, and names itself in {@code server_name} with its own version in {@code valkey_version}.
 */
public final class ServerProduct {
    private ServerProduct() {
    }

    /**
     * The product (from {@code server_name}; {@code redis} when absent, as before Redis 7.2) and that
     * product's own version.
     *
     * @return e.g. {@code "redis 7.0.15"}, {@code "valkey 9.1.2"}
     * @throws IllegalStateException when the text has no {@code redis_version}
     */
    public static String of(String infoServer) {
        String name = field(infoServer, "server_name");
        String product = name == null ? "redis" : name;
        String version = field(infoServer, product + "_version");
        if (version == null) {
            version = field(infoServer, "redis_version");
        }
        if (version == null) {
            throw new IllegalStateException("no redis_version in INFO server: " + infoServer);
        }
        return product + " " + version;
    }

    /**
     * As the library names the server in its logs, JMX and status page.
     *
     * @return e.g. {@code "Redis 7.0.15"}, {@code "Valkey 9.1.2"}
     */
    public static String named(String infoServer) {
        String product = of(infoServer);
        return product.substring(0, 1).toUpperCase(Locale.ROOT) + product.substring(1);
    }

    /** A field of INFO's {@code name:value} lines; null when absent. */
    static String field(String info, String name) {
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }
}
