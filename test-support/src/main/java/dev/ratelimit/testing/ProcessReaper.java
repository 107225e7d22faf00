package dev.ratelimit.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The safety net for {@link RedisProcessServer}s whose {@code close()} never runs: a JVM shutdown hook that
 * kills every process still registered and deletes its temp dirs.
 */
final class ProcessReaper {

    /** Servers whose process may still be running; the shutdown hook kills them. */
    private static final Set<RedisProcessServer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Thread reaper = new Thread(ProcessReaper::reapAll, "redis-test-server-reaper");
        reaper.setDaemon(false);
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    private ProcessReaper() {
    }

    /** A process of {@code server} has been started: kill it at shutdown unless {@link #unregister}ed. */
    static void register(RedisProcessServer server) {
        LIVE.add(server);
    }

    /** {@code server} has been closed: nothing left to reap. */
    static void unregister(RedisProcessServer server) {
        LIVE.remove(server);
    }

    private static void reapAll() {
        // Kill everything first, so that a failure while deleting files cannot leave a process behind.
        for (RedisProcessServer server : LIVE) {
            server.destroyAtShutdown();
        }
        for (RedisProcessServer server : LIVE) {
            server.awaitDeathAndDeleteDirs();
        }
    }
}
