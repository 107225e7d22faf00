package dev.ratelimit.internal.support;

import java.io.UnsupportedEncodingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.util.List;

/**
 * The parts of {@code redis://[user:password@]host[:port][/database]} ({@code rediss://} for TLS),
 * and the {@code host:port} node lists of Sentinel or Cluster beside it, parsed and checked. Every
 * message hides the user and password.
 */
public final class RedisAddress {
    /** The scheme of a Redis in the JVM for tests ({@code ratelimit-test-kit}): never a real one. */
    public static final String TEST_ONLY_SCHEME = "test-only-redis";

    public final String host;
    public final int port;
    public final boolean tls;
    /** The ACL user, or null for the default user. */
    public final String user;
    /** The password, or null. */
    public final String password;
    public final int database;
    /** The name of a test's Redis in the JVM ({@code test-only-redis://<name>}), or null for a real Redis. */
    public final String testOnlyName;
    private final String redacted;

    private RedisAddress(URI uri, String user, String password, int database) {
        this.host = uri.getHost();
        this.port = uri.getPort() == -1 ? 6379 : uri.getPort();
        this.tls = "rediss".equals(uri.getScheme());
        this.user = user;
        this.password = password;
        this.database = database;
        this.testOnlyName = null;
        this.redacted = hideUserInfo(uri.toString());
    }

    private RedisAddress(String testOnlyName) {
        this.host = testOnlyName;
        this.port = 0;
        this.tls = false;
        this.user = null;
        this.password = null;
        this.database = 0;
        this.testOnlyName = testOnlyName;
        this.redacted = TEST_ONLY_SCHEME + "://" + testOnlyName;
    }

    /** @throws BadArgument naming {@code redisUri}, with the password hidden */
    public static RedisAddress parse(String text) {
        if (text == null) {
            throw new BadArgument("redisUri", "redisUri must be a redis:// or rediss:// URI, but was null");
        }
        if (text.trim().startsWith(TEST_ONLY_SCHEME + ":")) {
            return testOnly(text.trim());
        }
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw malformed(text);
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null
                || uri.getQuery() != null || uri.getFragment() != null) {
            throw malformed(text);
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String rawUser = colon < 0 ? "" : userInfo.substring(0, colon);
            String rawPassword = colon < 0 ? userInfo : userInfo.substring(colon + 1);
            user = rawUser.isEmpty() ? null : percentDecode(rawUser);
            password = rawPassword.isEmpty() ? null : percentDecode(rawPassword);
        }
        return new RedisAddress(uri, user, password, database(uri, text));
    }

    /**
     * {@code test-only-redis://<name>}: a Redis in this JVM that the test kit keeps under that name.
     * Nothing else in it (no user, port or database), so that it cannot pass for a real address.
     */
    private static RedisAddress testOnly(String text) {
        String prefix = TEST_ONLY_SCHEME + "://";
        String name = text.startsWith(prefix) ? text.substring(prefix.length()) : "";
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new BadArgument("redisUri", "redisUri must be " + prefix + "<name> with a name of 1 to 64 letters, "
                    + "digits, '-' and '_' for the test kit's Redis, but was '" + hideUserInfo(text) + "'");
        }
        return new RedisAddress(name);
    }

    private static int database(URI uri, String text) {
        String path = uri.getPath();
        if (path == null || path.isEmpty() || "/".equals(path)) {
            return 0;
        }
        try {
            int database = Integer.parseInt(path.substring(1));
            if (database >= 0) {
                return database;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadArgument("redisUri", "redisUri database must be a number >= 0 after the last '/', but was '"
                + hideUserInfo(text) + "'");
    }

    private static BadArgument malformed(String text) {
        return new BadArgument("redisUri", "redisUri must look like redis://[user:password@]host[:port][/database] "
                + "(rediss:// for TLS), but was '" + hideUserInfo(text) + "'");
    }

    /** URLDecoder would turn '+' into a blank, which is wrong for a password in a URI. */
    private static String percentDecode(String raw) {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("every JVM has UTF-8", e);
        }
    }

    /**
     * Hides whatever stands between the scheme and the last {@code @}, even in a URI that does not
     * parse: {@code redis://u:p@h} and a mistyped {@code redis:/:secret@host} both lose their secret.
     */
    public static String hideUserInfo(String uri) {
        return uri.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*:/*)?.*@", "$1****@");
    }

    /** Unless every node is {@code host:port} with a port from 1 to 65535, a BadArgument naming the setting. */
    private static void checkNodes(String name, List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new BadArgument(name, name + " must list host:port pairs separated by commas, but was "
                    + (nodes == null ? "null" : "empty"));
        }
        for (String node : nodes) {
            int colon = node.lastIndexOf(':');
            boolean valid = colon > 0 && colon < node.length() - 1;
            if (valid) {
                try {
                    int port = Integer.parseInt(node.substring(colon + 1));
                    valid = port > 0 && port < 65536;
                } catch (NumberFormatException e) {
                    valid = false;
                }
            }
            if (!valid) {
                throw new BadArgument(name, name + " must list host:port pairs separated by commas, but '"
                        + node + "' in '" + String.join(",", nodes) + "' is not one");
            }
        }
    }

    /**
     * Checks that these settings reach one Redis: Sentinel nodes with the master's name; Cluster nodes without
     * Sentinel, and with database 0 (Cluster has only that one). A BadArgument names the setting and its value.
     */
    public void checkTopology(String sentinelMaster, List<String> sentinelNodes, List<String> clusterNodes) {
        // Each decided once: the test kit's refusal and the checks below ask the same two questions.
        boolean sentinel = sentinelMaster != null || (sentinelNodes != null && !sentinelNodes.isEmpty());
        boolean cluster = clusterNodes == null || !clusterNodes.isEmpty();
        if (testOnlyName != null && (sentinel || cluster)) {
            throw new BadArgument("redisUri", "redisUri " + redacted + " is the test kit's Redis in the JVM, which "
                    + "has no Sentinel or Cluster, but redisSentinelMaster, redisSentinelNodes or redisClusterNodes was set");
        }
        if (sentinel) {
            if (sentinelMaster == null || sentinelMaster.trim().isEmpty()) {
                throw new BadArgument("redisSentinelMaster", "redisSentinelMaster must name the master when "
                        + "redisSentinelNodes is set, but was '" + sentinelMaster + "'");
            }
            checkNodes("redisSentinelNodes", sentinelNodes);
        }
        if (cluster) {
            checkNodes("redisClusterNodes", clusterNodes);
            if (sentinelMaster != null) {
                throw new BadArgument("redisClusterNodes", "redisClusterNodes and redisSentinelMaster exclude each other, "
                        + "but both were set: '" + String.join(",", clusterNodes) + "' and '" + sentinelMaster + "'");
            }
            if (database != 0) {
                throw new BadArgument("redisUri", "redisUri database must be 0 with redisClusterNodes (Cluster has "
                        + "only database 0), but was " + database);
            }
        }
    }

    @Override
    public String toString() {
        return redacted;
    }
}
