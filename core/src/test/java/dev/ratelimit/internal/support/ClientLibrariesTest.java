package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 38: a WAR that carries its own old Jedis and commons-pool2 beside this library's. Each class
 * loader here holds exactly the jars a WAR's WEB-INF/lib would, in the order a server may list them;
 * the old jars come from Maven Central through the build (target/old-redis-clients).
 */
class ClientLibrariesTest {
    private static final File OLD = new File("target/old-redis-clients");

    private static URL jarOf(Class<?> type) throws URISyntaxException, MalformedURLException {
        return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toURI().toURL();
    }

    private static URL old(String jar) throws MalformedURLException {
        File file = new File(OLD, jar);
        assertThat(file).as("copied by the build").exists();
        return file.toURI().toURL();
    }

    private static String problemWith(URL... jars) throws Exception {
        try (URLClassLoader war = new URLClassLoader(jars, ClassLoader.getPlatformClassLoader())) {
            return ClientLibraries.problem(war);
        }
    }

    @Test
    void theLibrarysOwnClassPathHasOneJedisSevenAndAPoolNewEnough() {
        assertThat(ClientLibraries.problem(ClientLibraries.class.getClassLoader())).isNull();
        ClientLibraries.check();
        ClientLibraries.check();
    }

    @Test
    void jedisTwoNineListedFirstIsNamedWithBothJarsAndWhatToDo() throws Exception {
        String problem = problemWith(old("jedis-2.9.0.jar"), old("commons-pool2-2.4.2.jar"), jarOf(UnifiedJedis.class),
                jarOf(GenericObjectPool.class));

        assertThat(problem).startsWith("[REDIS_CLIENT_CLASH] redis-ratelimit needs Jedis 7")
                .contains("Jedis classes come from 2 jars")
                .contains("jedis-2.9.0.jar (2.9.0)").contains("jedis-7.5.3.jar (7.5.3)")
                .contains("commons-pool2-2.4.2.jar (2.4.2)")
                .contains("To fix: replace this library's jars with ratelimit-all (jakarta) or ratelimit-all-javax")
                .contains("or upgrade the webapp's Jedis to 7.x");
    }

    @Test
    void ourJarsListedFirstStillLeaveTheWebappsOwnCodeOnAJedisItWasNotWrittenFor() throws Exception {
        String problem = problemWith(jarOf(UnifiedJedis.class), jarOf(GenericObjectPool.class), old("jedis-3.10.0.jar"));

        assertThat(problem).contains("there are two versions of Jedis").contains("jedis-3.10.0.jar (3.10.0)");
    }

    @Test
    void anOldPoolAloneIsNamedByTheMethodJedisSevenCalls() throws Exception {
        String problem = problemWith(old("commons-pool2-2.4.2.jar"), jarOf(UnifiedJedis.class));

        assertThat(problem).contains("commons-pool2 lacks setMinEvictableIdleTime(Duration)");
    }

    @Test
    void jedisFourAloneIsMissingWhatSevenHas() throws Exception {
        String problem = problemWith(old("jedis-4.4.8.jar"), jarOf(GenericObjectPool.class));

        assertThat(problem).contains("is missing").contains("jedis-4.4.8.jar (4.4.8)");
    }
}
