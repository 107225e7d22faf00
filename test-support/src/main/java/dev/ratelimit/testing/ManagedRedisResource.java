package dev.ratelimit.testing;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lifecycle shared by {@link RedisServerExtension}, {@link RedisClusterExtension} and
 * {@link RedisSentinelExtension}: Redis started in JUnit's {@code beforeAll} (or with {@code open()}) and
 * released in {@code afterAll} (or with {@link #close()}), plus a random key prefix per instance.
 *
 * <p>Opens nest: only the first one starts Redis ({@link #doOpen()}), so that nested test classes reuse the
 * outer class's; only the matching last {@link #close()} releases it ({@link #doClose()}). All state changes
 * happen while holding the instance's monitor, the same one the subclasses' {@code synchronized} methods use.
 *
 * <p>Package-private on purpose: the public API stays that of the three extensions. The public methods here are
 * deliberately not {@code final}: javac then adds public bridges to each (final) subclass, so they stay methods
 * of the public classes, also for reflection and javadoc.
 */
abstract class ManagedRedisResource implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /** Prefix of every line the test support logs to {@code System.err}. */
    static final String LOG_PREFIX = "[redis-test] ";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String keyPrefix = newKeyPrefix();

    private int opens;
    private String ownerName = "programmatic use";

    /** A fresh random key prefix such as {@code t3fa91c07d2e4:}. */
    private static String newKeyPrefix() {
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        return "t" + HexFormat.of().formatHex(bytes) + ":";
    }

    // ------------------------------------------------------------------------------------------
    // Hooks
    // ------------------------------------------------------------------------------------------

    /**
     * Starts (or connects to) Redis and waits until it is usable. Called by the first, not nested, open. On
     * failure it throws after releasing whatever it had obtained; the extension then stays closed.
     */
    abstract void doOpen();

    /**
     * The log line for a successful open, after {@code "owner -> "}; called once the extension is open, so
     * the public accessors work.
     *
     * @param startup how long {@link #doOpen()} took
     */
    abstract String describeOpened(Duration startup);

    /** Releases everything {@link #doOpen()} obtained. Called by the last nested {@link #close()}. */
    abstract void doClose();

    // ------------------------------------------------------------------------------------------
    // JUnit callbacks and lifecycle
    // ------------------------------------------------------------------------------------------

    /**
     * Opens the extension for the test class (see {@code open()}); nested test classes reuse the outer
     * class's Redis. Called by JUnit.
     *
     * @param context the JUnit context of the test class
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        synchronized (this) {
            if (opens == 0) {
                ownerName = context.getTestClass().map(Class::getName).orElse(context.getDisplayName());
            }
        }
        acquire();
    }

    /**
     * Releases what {@link #beforeAll} obtained (see {@link #close()}). Called by JUnit.
     *
     * @param context the JUnit context of the test class
     */
    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * The body of each extension's {@code open()}: the first call runs {@link #doOpen()} and logs what was
     * opened, later calls only count, so that each needs a matching {@link #close()}.
     */
    final void acquire() {
        acquire(true);
    }

    /**
     * As {@link #acquire()}, the line on {@code System.err} only when {@code announce}: a caller that says
     * what it opened in its own words (the example's launcher) leaves the tests' line out.
     */
    final synchronized void acquire(boolean announce) {
        if (opens > 0) {
            opens++;
            return;
        }
        long start = System.nanoTime();
        doOpen();
        opens = 1;
        Duration startup = Duration.ofNanos(System.nanoTime() - start);
        if (announce) {
            System.err.println(LOG_PREFIX + ownerName + " -> " + describeOpened(startup));
        }
    }

    /**
     * Releases everything {@code open()} obtained, when the last nested open is closed (what that means
     * depends on the extension, see its class comment). Safe to call twice.
     */
    @Override
    public synchronized void close() {
        if (opens == 0 || --opens > 0) {
            return;
        }
        doClose();
    }

    /** Whether an open is in effect. */
    final synchronized boolean isOpen() {
        return opens > 0;
    }

    /**
     * @throws IllegalStateException when the extension is not open; the message says how to open it
     */
    final synchronized void requireOpen() {
        if (opens == 0) {
            throw new IllegalStateException(getClass().getSimpleName() + " is not open: register it with "
                    + "@RegisterExtension on a static field (it starts in beforeAll), or call open() first");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Keys
    // ------------------------------------------------------------------------------------------

    /**
     * A prefix unique to this extension instance, e.g. {@code t3fa91c07d2e4:}. Tests must write only keys
     * under it, so that a shared server (such as a {@code REDIS_URL} one) is never disturbed.
     *
     * @return the key prefix, ending in {@code ':'}
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * Convenience for {@code keyPrefix() + name}.
     *
     * @param name the key name below the prefix
     * @return the full key
     */
    public String key(String name) {
        return keyPrefix + name;
    }
}
