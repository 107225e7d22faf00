package dev.ratelimit.all;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 38: the all-in-one jar as built (target/ratelimit-all*.jar, after the shade plugin ran at
 * package), first by its contents (as Hadoop's client-check-invariants does: no class outside
 * {@code dev.ratelimit}), then as a WAR's WEB-INF/lib holds it beside the WAR's own Jedis 2.9 and
 * commons-pool2 2.4.2 (copied from Maven Central by the build to target/war-lib). Everything in that
 * webapp is reached by reflection through its own class loader, whose parent is the platform loader:
 * this test's class path (with the plain Jedis 7) stays out of it. all-javax runs this same class on
 * its javax jar.
 */
class AllInOneJarIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Path JAR = Paths.get(System.getProperty("all.jar"));
    private static final Path WAR_LIB = Paths.get(System.getProperty("war.lib"));
    /** jakarta or javax: the servlet API the jar's adapters are compiled against. */
    private static final String NAMESPACE = System.getProperty("all.servlet.namespace");
    /** The newest class file version the jar may hold (52 = Java 8, 55 = Java 11). */
    private static final int MAX_CLASS_VERSION = Integer.getInteger("all.max.class.version");

    @Test
    void holdsNoClassOutsideTheProjectsPackageAndNothingOldScannersChokeOn() throws IOException {
        List<String> entries = entries();

        assertThat(entries).as("classes outside dev.ratelimit (unrelocated dependencies, SLF4J)")
                .filteredOn(name -> name.endsWith(".class") && !name.startsWith("dev/ratelimit/")).isEmpty();
        assertThat(entries).anyMatch(name -> name.startsWith("dev/ratelimit/shaded/redis/clients/jedis/"))
                .anyMatch(name -> name.startsWith("dev/ratelimit/shaded/org/apache/commons/pool2/"))
                .anyMatch(name -> name.startsWith("dev/ratelimit/shaded/com/google/gson/"))
                .anyMatch(name -> name.startsWith("dev/ratelimit/shaded/org/json/"))
                .contains("dev/ratelimit/RateLimiter.class", "dev/ratelimit/servlet/RateLimitFilter.class",
                        "dev/ratelimit/jaxrs/RateLimitFeature.class");
        assertThat(entries).noneMatch(name -> name.startsWith("org/slf4j/"))
                .noneMatch(name -> name.endsWith("module-info.class"))
                .noneMatch(name -> name.startsWith("META-INF/versions/"))
                .noneMatch(name -> name.endsWith(".SF") || name.endsWith(".RSA") || name.endsWith(".DSA"));
        assertThat(entries).as("Maven metadata of another project: ClientLibraries would count it as a second Jedis")
                .filteredOn(name -> name.startsWith("META-INF/maven/") && !name.startsWith("META-INF/maven/dev.ratelimit/")
                        && !name.endsWith("/"))
                .isEmpty();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Multi-Release")).isNull();
        }
    }

    @Test
    void itsAdaptersSpeakOneNamespaceInBytecodeItsServersRun() throws IOException {
        List<String> entries = entries();
        assertThat(entries).contains("META-INF/services/" + NAMESPACE + ".servlet.ServletContainerInitializer");
        try (JarFile jar = new JarFile(JAR.toFile())) {
            String filter = new String(bytes(jar, "dev/ratelimit/servlet/RateLimitFilter.class"), "ISO-8859-1");
            assertThat(filter).contains(NAMESPACE + "/servlet/Filter");
            List<String> tooNew = new ArrayList<>();
            for (JarEntry entry : Collections.list(jar.entries())) {
                if (entry.getName().endsWith(".class") && classVersion(jar, entry) > MAX_CLASS_VERSION) {
                    tooNew.add(entry.getName());
                }
            }
            assertThat(tooNew).as("classes newer than version " + MAX_CLASS_VERSION).isEmpty();
        }
    }

    @Test
    void decidesExactlyBesideAWarsOwnJedisTwoNineWhichStillWorks() throws Exception {
        URL[] webInfLib = {warLib("jedis-2.9.0.jar"), warLib("commons-pool2-2.4.2.jar"), JAR.toUri().toURL(),
            warLib("slf4j-api-1.7.36.jar")};
        try (URLClassLoader webapp = new URLClassLoader(webInfLib, ClassLoader.getPlatformClassLoader())) {
            Class<?> libraries = webapp.loadClass("dev.ratelimit.internal.support.ClientLibraries");
            assertThat(libraries.getMethod("problem", ClassLoader.class).invoke(null, webapp))
                    .as("no REDIS_CLIENT_CLASH beside the WAR's own Jedis").isNull();

            assertThat(decisions(webapp, 6)).containsExactly(true, true, true, true, true, false);
            assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("*pool2*:*"), null))
                    .as("commons-pool2 MBeans (jmxEnabled is off)").isEmpty();

            Class<?> pool = webapp.loadClass("redis.clients.jedis.JedisPool");
            assertThat(pool.getProtectionDomain().getCodeSource().getLocation().getPath()).endsWith("jedis-2.9.0.jar");
            assertThat(webapp.loadClass("org.apache.commons.pool2.impl.GenericObjectPool").getProtectionDomain()
                    .getCodeSource().getLocation().getPath()).endsWith("commons-pool2-2.4.2.jar");
            assertThat(setAndGetWithJedisTwoNine(pool, redis.key("war-own"), "2.9")).isEqualTo("2.9");
        }
    }

    /** Our limiter out of the shaded jar, 5 per minute: the answers to {@code requests} requests of one client. */
    private static List<Boolean> decisions(ClassLoader webapp, int requests) throws Exception {
        Class<?> storeType = webapp.loadClass("dev.ratelimit.RedisStore");
        Class<?> algorithm = webapp.loadClass("dev.ratelimit.Algorithm");
        Class<?> ruleType = webapp.loadClass("dev.ratelimit.Rule");
        Class<?> limiterType = webapp.loadClass("dev.ratelimit.RateLimiter");
        Object store = storeType.getMethod("connect", String.class).invoke(null, redis.uri());
        try {
            assertThat(store.getClass().getClassLoader()).isSameAs(webapp);
            Object rule = ruleType.getMethod("of", algorithm, long.class, Duration.class)
                    .invoke(null, algorithm.getField("SLIDING_LOG").get(null), 5L, Duration.ofMinutes(1));
            Object builder = limiterType.getMethod("builder", storeType).invoke(null, store);
            Class<?> builderType = builder.getClass();
            builderType.getMethod("keyPrefix", String.class).invoke(builder, redis.keyPrefix());
            builderType.getMethod("rule", ruleType).invoke(builder, rule);
            Object limiter = builderType.getMethod("build").invoke(builder);
            Method tryAcquire = limiterType.getMethod("tryAcquire", String.class);
            List<Boolean> allowed = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                Object decision = tryAcquire.invoke(limiter, "client-1");
                allowed.add((Boolean) decision.getClass().getMethod("allowed").invoke(decision));
            }
            return allowed;
        } finally {
            storeType.getMethod("close").invoke(store);
        }
    }

    /** The WAR's own code: Jedis 2.9's JedisPool, as Spring Data Redis 1.x or a session manager uses it. */
    private static String setAndGetWithJedisTwoNine(Class<?> poolType, String key, String value) throws Exception {
        Object pool = poolType.getConstructor(String.class, int.class).newInstance(redis.host(), redis.port());
        try {
            Object jedis = poolType.getMethod("getResource").invoke(pool);
            try {
                jedis.getClass().getMethod("set", String.class, String.class).invoke(jedis, key, value);
                return (String) jedis.getClass().getMethod("get", String.class).invoke(jedis, key);
            } finally {
                jedis.getClass().getMethod("close").invoke(jedis);
            }
        } finally {
            poolType.getMethod("destroy").invoke(pool);
        }
    }

    private static URL warLib(String jar) throws IOException {
        Path file = WAR_LIB.resolve(jar);
        assertThat(file).as("copied by the build").exists();
        return file.toUri().toURL();
    }

    private static List<String> entries() throws IOException {
        assertThat(JAR).as("the shaded jar, built at package").exists();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            return jar.stream().map(JarEntry::getName).collect(Collectors.toList());
        }
    }

    private static byte[] bytes(JarFile jar, String name) throws IOException {
        try (InputStream in = jar.getInputStream(jar.getEntry(name))) {
            return in.readAllBytes();
        }
    }

    private static int classVersion(JarFile jar, JarEntry entry) throws IOException {
        try (DataInputStream in = new DataInputStream(jar.getInputStream(entry))) {
            in.readInt();
            in.readUnsignedShort();
            return in.readUnsignedShort();
        }
    }
}
