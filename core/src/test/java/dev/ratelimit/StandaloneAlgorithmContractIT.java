package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The algorithm contract on a standalone Redis, and what only it has: the transaction transport
 * (Jedis runs no MULTI/EXEC on Cluster), switched to and from in place.
 */
class StandaloneAlgorithmContractIT extends AlgorithmContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisSettings settings() {
        return RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(2)).build();
    }

    @Override
    String keyPrefix() {
        return redis.keyPrefix();
    }

    @Override
    UnifiedJedis admin() {
        return redis.client();
    }

    @Override
    List<String> allKeys() {
        return redis.keys();
    }

    @Override
    void flushScripts() {
        redis.client().scriptFlush();
    }

    /** Switches between the transaction transport's fixed-window and every script, both ways. */
    Stream<Arguments> transportSwitches() {
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm other : Algorithm.values()) {
            if (other != Algorithm.FIXED_WINDOW) {
                cases.add(Arguments.of(other, Transport.LUA, Algorithm.FIXED_WINDOW, Transport.TRANSACTION));
                cases.add(Arguments.of(Algorithm.FIXED_WINDOW, Transport.TRANSACTION, other, Transport.LUA));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} over {1}, then {2} over {3}")
    @MethodSource("transportSwitches")
    void switchingToOrFromTheTransactionTransportStartsEachClientAfresh(Algorithm from, Transport fromTransport,
            Algorithm to, Transport toTransport) {
        String policy = "transport-switch-" + policies.incrementAndGet();
        RateLimiter before = limiter(nodeA, policy, fromTransport, Rule.of(from, 5, Duration.ofHours(1)));
        useUp(before);

        RateLimiter after = limiter(nodeB, policy, toTransport, Rule.of(to, 5, Duration.ofHours(1)));
        assertStartsAfresh(after, to);
    }

    @ParameterizedTest(name = "{0} over {1}, then {2} over {3}")
    @MethodSource("transportSwitches")
    void manyThreadsOfTwoNodesReplacingAnotherAlgorithmsStateAdmitExactlyTheLimit(Algorithm from,
            Transport fromTransport, Algorithm to, Transport toTransport) throws Exception {
        String policy = "concurrent-switch-" + policies.incrementAndGet();
        useUp(limiter(nodeA, policy, fromTransport, Rule.of(from, 5, Duration.ofHours(1))));
        Rule rule = Rule.of(to, 20, Duration.ofHours(1));
        RateLimiter onA = limiter(nodeA, policy, toTransport, rule);
        RateLimiter onB = limiter(nodeB, policy, toTransport, rule);

        int admitted = hammer(200, 32, i -> {
            Decision decision = (i % 2 == 0 ? onA : onB).tryAcquire("c");
            assertThat(decision.degraded()).as("a replacement race is no failure").isFalse();
            return decision.allowed();
        });

        assertThat(admitted).isEqualTo(to.isExact() ? 20 : admitted).isBetween(20, 40);
    }
}
