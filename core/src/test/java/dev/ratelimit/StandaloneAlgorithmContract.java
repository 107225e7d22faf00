package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The algorithm contract on a standalone Redis, and what only it has: the transaction transport
 * (Jedis runs no MULTI/EXEC on Cluster), switched to and from in place. A subclass per Redis
 * version the build proves.
 */
abstract class StandaloneAlgorithmContract extends AlgorithmContract {

    /** The server under test, registered by the subclass. */
    abstract RedisServerExtension redis();

    @Override
    RedisSettings settings() {
        return RedisSettings.builder(redis().uri()).timeout(Duration.ofSeconds(2)).build();
    }

    @Override
    String keyPrefix() {
        return redis().keyPrefix();
    }

    @Override
    UnifiedJedis admin() {
        return redis().client();
    }

    @Override
    List<String> allKeys() {
        return redis().keys();
    }

    @Override
    void flushScripts() {
        redis().client().scriptFlush();
    }

    /** Switches between each algorithm of the transaction transport and every other script, both ways. */
    Stream<Arguments> transportSwitches() {
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm transacted : Algorithm.values()) {
            if (!transacted.runsAsTransaction()) {
                continue;
            }
            for (Algorithm other : Algorithm.values()) {
                if (other != transacted) {
                    cases.add(Arguments.of(other, Transport.LUA, transacted, Transport.TRANSACTION));
                    cases.add(Arguments.of(transacted, Transport.TRANSACTION, other, Transport.LUA));
                }
            }
        }
        return cases.stream();
    }

    /**
     * The transaction transport keeps the very log the script keeps: a policy moved from one to the
     * other (a user whose scripting was taken away, or given back) goes on counting, exactly.
     */
    @Test
    void aSlidingLogGoesOnCountingAcrossTransportsBothWays() {
        String policy = "log-across-" + policies.incrementAndGet();
        Rule rule = Rule.of(Algorithm.SLIDING_LOG, 6, Duration.ofHours(1));
        RateLimiter scripted = limiter(nodeA, policy, Transport.LUA, rule);
        RateLimiter transacted = limiter(nodeB, policy, Transport.TRANSACTION, rule);

        assertThat(scripted.tryAcquire("c", 2).remaining()).isEqualTo(4);
        assertThat(transacted.tryAcquire("c", 3).remaining()).isEqualTo(1);
        assertThat(scripted.tryAcquire("c").remaining()).isZero();
        Decision denied = transacted.tryAcquire("c");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).as("until the first request leaves the log")
                .isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
        assertThat(scripted.peek("c").remaining()).isZero();
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
