package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.StoresForTests;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.testkit.TestOnlyGateway;
import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import dev.ratelimit.testing.RealRedisStep;
import dev.ratelimit.testing.RealRedisStep.KeyState;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kit decides as real Redis does, for every algorithm: one seeded sequence of requests
 * (costs of 1 to 3, peeks, releases of concurrency leases, time moving by steps from a microsecond
 * to seconds, across windows and expiries) goes to a limiter on the kit's store and to a limiter
 * with the same rules on real Redis, and every decision is the same: allowed, remaining,
 * retry-after and reset-after to the microsecond. Both limiters keep the kit's clock.
 *
 * <p>Exact and sleep-free: the real side's gateway ({@link MirroredRedis}) starts each call from
 * the kit's state of its keys, at the kit's instant, in one millisecond of Redis; after each call
 * the state real Redis left (values, scores, TTLs to the millisecond) must be the state the kit
 * left, so that by induction real Redis alone, at those instants, would have answered the same
 * throughout (the overrides' client-reset mark aside: each limiter makes it at a random number of
 * its own, and no decision reads its value), and instants where a key would be at its very last
 * millisecond are stepped over by a millisecond. Concurrency's lease names differ (each limiter draws its own), and are compared
 * without their random part; the transaction transport's sliding log, which reads the clock in
 * several round trips, has its keys' TTLs compared within 50 ms.
 */
class KitParityIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    @RegisterExtension
    static final TestOnlyRedisExtension kit = new TestOnlyRedisExtension("parity");

    private static final Duration[] STEPS = {Duration.ZERO, Duration.ofNanos(1_000), Duration.ofNanos(999_000),
        Duration.ofMillis(1), Duration.ofMillis(37), Duration.ofMillis(250), Duration.ofSeconds(1),
        Duration.ofMillis(1999), Duration.ofSeconds(2), Duration.ofMillis(2001), Duration.ofSeconds(5)};

    static Rule rule(Algorithm algorithm) {
        Duration window = Duration.ofSeconds(2);
        return algorithm.usesBurst() ? Rule.builder(algorithm, 3, window).burst(5).build() : Rule.of(algorithm, 5, window);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void everyAlgorithmDecidesAsRealRedis(Algorithm algorithm) {
        compare(algorithm, Transport.LUA);
    }

    @ParameterizedTest(name = "{0} over transactions")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_LOG"})
    void theTransactionTransportDecidesAsRealRedis(Algorithm algorithm) {
        compare(algorithm, Transport.TRANSACTION);
    }

    private void compare(Algorithm algorithm, Transport transport) {
        InJvmRedis engine = TestOnlyGateway.gateway(kit.name()).redis();
        MirroredRedis mirror = new MirroredRedis(redis.client(), engine);
        String prefix = redis.keyPrefix() + transport + ":";
        RateLimiter real = limiter(StoresForTests.over(mirror), algorithm, transport, prefix);
        RateLimiter inKit = limiter(kit.store(), algorithm, transport, prefix);
        Random random = new Random(52 + algorithm.ordinal() + 10L * transport.ordinal());
        Deque<Decision[]> held = new ArrayDeque<>();
        List<String> log = new ArrayList<>();
        int denials = 0;
        for (int i = 0; i < 150; i++) {
            int kind = random.nextInt(100);
            String client = random.nextBoolean() ? "alice" : "bob";
            stepOverLastMillisecond(engine, real.redisKeys(client));
            long permits = algorithm == Algorithm.CONCURRENCY ? 1 : 1 + random.nextInt(3);
            String what;
            Decision[] both;
            mirror.calls.clear();
            if (kind < 55) {
                what = "tryAcquire " + client + " " + permits;
                both = new Decision[] {real.tryAcquire(client, permits), inKit.tryAcquire(client, permits)};
                if (algorithm == Algorithm.CONCURRENCY && both[1].allowed()) {
                    held.add(both);
                }
            } else if (kind < 65) {
                what = "peek " + client;
                both = new Decision[] {real.peek(client), inKit.peek(client)};
            } else if (kind < 75 && !held.isEmpty()) {
                what = "release";
                Decision[] lease = random.nextBoolean() ? held.pollFirst() : held.pollLast();
                real.release(lease[0]);
                inKit.release(lease[1]);
                both = null;
            } else {
                Duration step = STEPS[random.nextInt(STEPS.length)];
                what = "advance " + step;
                kit.advance(step);
                both = null;
            }
            String at = "step " + i + " (" + what + ") at " + engine.nanoTime() / 1000 + " us; before: "
                    + log.subList(Math.max(0, log.size() - 4), log.size());
            if (both != null) {
                assertSame(at, both[0], both[1]);
                denials += both[1].allowed() ? 0 : 1;
                log.add(what + " -> " + both[1]);
            } else {
                log.add(what);
            }
            for (MirroredRedis.Mirrored call : mirror.calls) {
                if (call.what().equals("overrides.lua") || call.keys().stream().allMatch(KitParityIT::overrides)) {
                    // The overrides' read makes a missing client-reset mark at a number each limiter draws.
                    continue;
                }
                List<KeyState> kitAfter = RealRedisStep.stateOf(engine::command, call.keys());
                boolean loose = transport == Transport.TRANSACTION;
                assertThat(normalized(call.after(), loose)).as(at + ": state after " + call.what())
                        .isEqualTo(normalized(kitAfter, loose));
                for (int k = 0; loose && k < kitAfter.size(); k++) {
                    assertThat(call.after().get(k).pttl()).as(at + ": TTL after " + call.what())
                            .isCloseTo(kitAfter.get(k).pttl(), within(50L));
                }
            }
        }
        assertThat(denials).as("denials compared").isGreaterThan(5);
    }

    private static boolean overrides(String key) {
        return key.endsWith(":client-reset") || key.endsWith(":overrides");
    }

    /** A key at its very last millisecond (PTTL 0) cannot be given to real Redis: no PEXPIRE sets that. */
    private static void stepOverLastMillisecond(InJvmRedis engine, List<String> keys) {
        for (String key : keys) {
            if (Long.valueOf(0).equals(engine.command("PTTL", key))) {
                kit.advance(Duration.ofMillis(1));
            }
        }
    }

    private static RateLimiter limiter(RedisStore store, Algorithm algorithm, Transport transport, String prefix) {
        return RateLimiter.builder(store).policyName(algorithm.configName()).keyPrefix(prefix).rule(rule(algorithm))
                .transport(transport).build();
    }

    private static void assertSame(String at, Decision real, Decision inKit) {
        assertThat(inKit.allowed()).as(at + ": allowed").isEqualTo(real.allowed());
        assertThat(inKit.remaining()).as(at + ": remaining").isEqualTo(real.remaining());
        assertThat(inKit.limit()).as(at + ": limit").isEqualTo(real.limit());
        assertThat(inKit.retryAfter()).as(at + ": retry-after").isEqualTo(real.retryAfter());
        assertThat(inKit.resetAfter()).as(at + ": reset-after").isEqualTo(real.resetAfter());
    }

    /** Lease names without their limiter's random part; without the TTL where it is compared apart ({@code loose}). */
    private static List<String> normalized(List<KeyState> states, boolean loose) {
        List<String> text = new ArrayList<>();
        for (KeyState state : states) {
            text.add(state.type() + " " + String.valueOf(state.value()).replaceAll("lease:[0-9a-f]{32}:", "lease:*:")
                    + (loose ? "" : " pttl " + state.pttl()));
        }
        return text;
    }
}
