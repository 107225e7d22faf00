package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.support.OptionalModule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code redisUri=test-only-redis://<name>}: the gateway of the test kit's Redis in the JVM
 * ({@code ratelimit-test-kit}), found by name so that the core needs none of the kit (as the
 * optional metrics and tracing modules are found). The core keeps only this door: what a test
 * moves (the clock, a flush) reaches the limiters through {@link RedisGateway}'s defaults.
 *
 * <p>Such a Redis is a map in this JVM: limits per node, gone on restart. Opened while none of
 * the kit's JUnit extensions or rules is running, it says so at ERROR, once per store, for a WAR
 * that took the setting into production by mistake.
 */
public final class TestOnlyRedisLink {
    /** The kit's class whose public static factories make the gateway and tell whether a test runs. */
    static final String KIT_CLASS = "dev.ratelimit.internal.testkit.TestOnlyGateway";
    /** A class of the kit's engine, to tell a missing engine from a missing kit. */
    static final String ENGINE_CLASS = "dev.ratelimit.internal.redisinjvm.InJvmRedis";
    static final String KIT_ARTIFACT = "dev.ratelimit:ratelimit-test-kit";
    private static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.RedisStore");

    private TestOnlyRedisLink() {
    }

    /**
     * The gateway of the kit's Redis named {@code name}, made or found JVM-wide; {@code uri} is for messages. Throws
     * IllegalArgumentException naming {@code redisUri} when the kit is not on the class path.
     */
    public static RedisGateway open(String name, String uri) {
        ClassLoader loader = TestOnlyRedisLink.class.getClassLoader();
        RedisGateway gateway = (RedisGateway) find("gateway", uri, loader).make(name);
        if (!Boolean.TRUE.equals(find("underTest", uri, loader).make(name))) {
            LOG.error("Rate limit store redisUri={} is the test kit's Redis in this JVM, not a Redis server: limits "
                    + "are per JVM and lost on restart; never deploy this. Set redisUri to your Redis "
                    + "(see docs/testing.md)", uri);
        }
        return gateway;
    }

    private static OptionalModule find(String factory, String uri, ClassLoader loader) {
        return OptionalModule.find("redisUri", ENGINE_CLASS, KIT_CLASS, factory, loader, e -> "redisUri is '" + uri
                + "', the test kit's Redis in the JVM, which is for tests only, but the kit is not on the class path ("
                + e + "); add " + KIT_ARTIFACT + " to the tests' dependencies, or set redisUri to a real Redis "
                + "(redis://host:port)");
    }
}
