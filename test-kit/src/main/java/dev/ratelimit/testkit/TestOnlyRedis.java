package dev.ratelimit.testkit;

import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.internal.testkit.TestOnlyGateway;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A Redis in this JVM for your tests, under a name: it runs the limiter's production Lua scripts,
 * as Redis does, on a clock that only your test moves, so a test gets the answers a Redis server
 * would give without one. Point the filter or {@code RateLimitFeature} at it with
 * {@code redisUri=test-only-redis://<name>} ({@link #uri()}), or hand code that builds a
 * {@code RateLimiter} its {@link #store()}.
 *
 * <pre>{@code
 * TestOnlyRedis redis = TestOnlyRedis.named("shop");
 * RateLimiter limiter = RateLimiter.builder(redis.store())
 *         .rule(Rule.of(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)))
 *         .build();
 * limiter.tryAcquire("alice");             // allowed
 * redis.advance(Duration.ofMinutes(1));    // the window has passed
 * }</pre>
 *
 * <p>One Redis per name in the JVM: {@code named("shop")} here and a webapp's
 * {@code test-only-redis://shop} are the same. Thread-safe: like Redis, it runs one command or
 * script at a time. Not modelled: Cluster's slots, failures and timeouts, eviction. For tests
 * only: limits held here are per JVM and lost when it stops. Use {@link TestOnlyRedisExtension}
 * (JUnit 5) or {@link TestOnlyRedisRule} (JUnit 4) to reset it after each test.
 */
public class TestOnlyRedis {
    private final TestOnlyGateway gateway;

    /** @param name the Redis's name: letters, digits, '-' and '_' */
    TestOnlyRedis(String name) {
        Objects.requireNonNull(name, "name");
        // The same check as redisUri's, and the same message.
        RedisSettings.of(uriOf(name));
        this.gateway = TestOnlyGateway.forTest(name);
    }

    /**
     * The Redis of this name in the JVM, made empty on first use.
     *
     * @param name letters, digits, '-' and '_', at most 64
     * @throws IllegalArgumentException for another name, naming {@code redisUri} and the value
     */
    public static TestOnlyRedis named(String name) {
        return new TestOnlyRedis(name);
    }

    /** Its name. */
    public final String name() {
        return gateway.name();
    }

    /** {@code test-only-redis://<name>}: the {@code redisUri} of a filter or resource that should use it. */
    public final String uri() {
        return uriOf(gateway.name());
    }

    private static String uriOf(String name) {
        return "test-only-redis://" + name;
    }

    /**
     * Moves its clock forward: Redis' {@code TIME}, every key's TTL, and the clock of every limiter
     * on it (remembered denials, leases). The clock starts in November 2023 and moves only when told,
     * or by a reset ({@link #reset()}, and one microsecond at a client's reset).
     *
     * @throws IllegalArgumentException for a negative duration
     */
    public final void advance(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be zero or more: the clock only moves forward, but was "
                    + duration);
        }
        gateway.redis().advance(duration.toNanos());
    }

    /** Its clock now, as Redis' {@code TIME} answers it. */
    public final Instant now() {
        long nanos = gateway.redis().nanoTime();
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /**
     * Forgets every key, as a Redis emptied by FLUSHALL; every limiter on it forgets at once what it
     * kept in the JVM (remembered denials, leased permits), so the next request is decided as by a
     * fresh Redis. The clock moves 20 ms, as long as a Redis takes to restart: a refund of an
     * admission taken before the reset then gives nothing back to the fresh state, as on a real
     * Redis (a client's reset, {@code RateLimiter.reset}, moves it one microsecond for the same reason).
     */
    public final void reset() {
        gateway.flush();
    }

    /**
     * A store on this Redis for code that builds a {@code RateLimiter} or counter itself. Closing
     * it leaves the Redis and its keys as they are.
     */
    public final RedisStore store() {
        return RedisStore.connect(RedisSettings.of(uri()));
    }

    @Override
    public String toString() {
        return uri();
    }
}
