package dev.ratelimit;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link RedisStore} on a test class's {@link RedisServerExtension}, registered beside it:
 *
 * <pre>
 * &#64;RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
 * &#64;RegisterExtension static final RedisStoreExtension store = new RedisStoreExtension(redis);
 * </pre>
 *
 * It waits {@link #TIMEOUT} for a reply, not the default 200 ms: on a loaded build machine a burst's
 * or a refund's reply came late, and a test read the timeout as a failure of what it tested (seen in
 * CI: the refund ran, its reply came after 200 ms). Tests of what a timeout does set their own.
 * Connected at first use (after the server started, whatever order JUnit runs the extensions in),
 * closed after the class. A test that needs stores of its own (two nodes, one per test) takes them
 * from {@link #connect}, with the same patience.
 */
public final class RedisStoreExtension implements AfterAllCallback {
    /** How long a reply may take. */
    public static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final RedisServerExtension redis;
    private RedisStore store;

    public RedisStoreExtension(RedisServerExtension redis) {
        this.redis = redis;
    }

    /** The store, connected at the first call. */
    public synchronized RedisStore get() {
        if (store == null) {
            store = connect(redis.uri());
        }
        return store;
    }

    /** A store of the caller's, to close, waiting {@link #TIMEOUT} for a reply. */
    public static RedisStore connect(String uri) {
        return RedisStore.connect(RedisSettings.builder(uri).timeout(TIMEOUT).build());
    }

    /** A limiter on the store, its keys under the server's key prefix for this class. */
    public RateLimiterBuilder limiter(String policyName) {
        return RateLimiter.builder(get()).keyPrefix(redis.keyPrefix()).policyName(policyName);
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
