package dev.ratelimit.internal.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether the Redis client this library was built for is the one its class loader gives it. A WAR
 * often carries its own, older Jedis and commons-pool2 (Spring Data Redis, session managers); beside
 * ours, which jar a class comes from depends on the order the container lists them, and the webapp
 * fails deep in the pool with a {@code NoSuchMethodError} or a {@code VerifyError} that tells nobody
 * what to do. This reads, by reflection only (it names no Jedis type, so it loads whatever is on the
 * class path), where the classes the library uses come from, and says so in one line first.
 */
public final class ClientLibraries {
    /** The Jedis classes the library uses, all of them from Jedis 7. */
    private static final String[] JEDIS = {"redis.clients.jedis.UnifiedJedis", "redis.clients.jedis.Connection",
        "redis.clients.jedis.AbstractTransaction", "redis.clients.jedis.ConnectionPoolConfig",
        "redis.clients.jedis.Protocol", "redis.clients.jedis.HostAndPort", "redis.clients.jedis.Jedis"};
    /** The commons-pool2 classes Jedis and the library use. */
    private static final String[] POOL = {"org.apache.commons.pool2.impl.GenericObjectPool",
        "org.apache.commons.pool2.impl.BaseObjectPoolConfig", "org.apache.commons.pool2.impl.GenericObjectPoolConfig"};
    private static final String JEDIS_POM = "META-INF/maven/redis.clients/jedis/pom.properties";
    private static final String POOL_POM = "META-INF/maven/org.apache.commons/commons-pool2/pom.properties";

    private ClientLibraries() {
    }

    /** The class path does not change while the library is loaded: it is read once, when first checked. */
    private static final class OwnClassPath {
        static final String PROBLEM = problem(ClientLibraries.class.getClassLoader());
    }

    /**
     * Checks the class path this library was loaded from, once: an IllegalStateException with one line naming the
     * jars and what to do when the Jedis or commons-pool2 it loads is not the one it needs, or comes from several jars.
     */
    public static void check() {
        if (OwnClassPath.PROBLEM != null) {
            throw new IllegalStateException(OwnClassPath.PROBLEM);
        }
    }

    /** Null when the loader gives the library one Jedis 7 and one commons-pool2 2.12 or newer, else why not. */
    public static String problem(ClassLoader loader) {
        List<String> wrong = new ArrayList<>();
        Set<String> jedisFrom = origins(loader, JEDIS, wrong);
        Set<String> poolFrom = origins(loader, POOL, wrong);
        if (wrong.isEmpty() && !hasDurationSetters(loader)) {
            wrong.add("commons-pool2 lacks setMinEvictableIdleTime(Duration) (it is older than 2.10)");
        }
        if (jedisFrom.size() > 1) {
            wrong.add("Jedis classes come from " + jedisFrom.size() + " jars");
        } else if (severalVersions(loader, JEDIS_POM)) {
            // Ours win here, so the webapp's own Redis code runs on a Jedis it was not written for.
            wrong.add("there are two versions of Jedis");
        }
        if (poolFrom.size() > 1) {
            wrong.add("commons-pool2 classes come from " + poolFrom.size() + " jars");
        } else if (severalVersions(loader, POOL_POM)) {
            wrong.add("there are two versions of commons-pool2");
        }
        if (wrong.isEmpty()) {
            return null;
        }
        return "[REDIS_CLIENT_CLASH] redis-ratelimit needs Jedis 7 and commons-pool2 2.12 or newer, but on this class "
                + "path " + String.join("; ", wrong) + ". Jedis jars: " + copies(loader, JEDIS_POM)
                + "; commons-pool2 jars: " + copies(loader, POOL_POM) + ". The webapp carries its own Redis client "
                + "beside this library's, and which jar wins depends on the server's order. To fix: replace this library's "
                + "jars with ratelimit-all (jakarta) or ratelimit-all-javax, which carry a relocated Jedis of their own, "
                + "or upgrade the webapp's Jedis to 7.x and commons-pool2 to 2.12 or newer (one copy each), or remove "
                + "the older ones";
    }

    private static Set<String> origins(ClassLoader loader, String[] classes, List<String> wrong) {
        Set<String> from = new LinkedHashSet<>();
        for (String name : classes) {
            try {
                Class<?> type = Class.forName(name, false, loader);
                CodeSource source = type.getProtectionDomain().getCodeSource();
                from.add(source == null || source.getLocation() == null ? "?" : jarName(source.getLocation().toString()));
            } catch (ClassNotFoundException | LinkageError e) {
                wrong.add(name + " is missing");
            }
        }
        return from;
    }

    private static boolean hasDurationSetters(ClassLoader loader) {
        try {
            Class.forName(POOL[1], false, loader).getMethod("setMinEvictableIdleTime", Duration.class);
            return true;
        } catch (ReflectiveOperationException | LinkageError e) {
            return false;
        }
    }

    /** Each jar holding the library's Maven metadata, with its version: "jedis-2.9.0.jar (2.9.0)". */
    private static String copies(ClassLoader loader, String pom) {
        String found = metadata(loader, pom).stream().map(copy -> copy[0] + " (" + copy[1] + ")")
                .collect(Collectors.joining(", "));
        return found.isEmpty() ? "none found" : found;
    }

    private static boolean severalVersions(ClassLoader loader, String pom) {
        return metadata(loader, pom).stream().map(copy -> copy[1]).distinct().count() > 1;
    }

    /** {jar name, version} of each copy of the library's Maven metadata the loader sees. */
    private static List<String[]> metadata(ClassLoader loader, String pom) {
        List<String[]> found = new ArrayList<>();
        try {
            for (URL url : Collections.list(loader.getResources(pom))) {
                Properties properties = new Properties();
                try (InputStream in = url.openStream()) {
                    properties.load(in);
                }
                found.add(new String[] {jarName(url.toString()), properties.getProperty("version", "?")});
            }
        } catch (IOException unreadable) {
            found.add(new String[] {"unreadable", String.valueOf(unreadable.getMessage())});
        }
        return found;
    }

    /** The jar's file name out of a class or resource URL, which may be a full path inside the server. */
    static String jarName(String url) {
        String path = url;
        int inside = path.indexOf("!/");
        if (inside >= 0) {
            path = path.substring(0, inside);
        }
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
