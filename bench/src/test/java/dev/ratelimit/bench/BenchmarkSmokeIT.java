package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * Every benchmark and measurement, run for milliseconds, so none of them rots between full runs.
 * No timing is asserted: only that each one ran and reported.
 */
class BenchmarkSmokeIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void everyBenchmarkRunsAndReports() throws Exception {
        String report = BenchmarkReport.report(true, redis.uri());

        assertThat(report).contains("Smoke run", "## Decisions per second", "## Ours against the peers",
                "## Where the distance to the floor comes from",
                "## Redis commands per decision", "## Redis memory per client key", "## HTTP", "## Targets",
                "## Coalescing", "Redis CPU per decision with coalescing", "coalescing adds ≤ 1 ms at p99",
                "1 caller with coalescing ≥ 0.95 × without", "### 10,000 clients", "### 100 clients",
                "| Tomcat's RateLimitFilter |", "| floor: one EVALSHA `return 1` |", "| over the floor |", "| async hand-off alone, no Redis |",
                "| `gcra`, leases |", "leases, 100 busy clients: ≤ 0.1 script calls",
                "| `gcra`, server span, tracing=opentelemetry |", "| `gcra`, server span, tracingSpan=own |");
        for (String algorithm : new String[] {"fixed-window", "sliding-log", "sliding-window", "token-bucket",
                "leaky-bucket", "gcra"}) {
            assertThat(report).contains("| `" + algorithm + "` | distinct |", "| `" + algorithm + "` | hot-denied |",
                    "| `" + algorithm + "` | distinct, coalescing off |");
        }
        assertThat(report).contains("| bucket4j token bucket (Jedis) | distinct |", "| Redisson RRateLimiter | distinct |",
                "| naive four-call sorted set | distinct |");
        assertThat(report).doesNotContain("| – |").as("every row has a figure");
        // One round trip per decision. A smoke run makes few decisions, so the once-per-2-s read of a
        // policy's live overrides (and a first connection's PING) can show as a hundredth or two.
        assertThat(report).containsPattern("\\| `gcra` \\| 1\\.0[0-4] \\|");
        assertThat(report).contains("| EVALSHA of one `SET PX` | distinct |",
                "| `token-bucket` script alone (bare EVALSHA) | distinct |");
    }

    /** ScriptBenchmark builds our scripts' arguments outside RateLimiter: they must be what RateLimiter sends. */
    @Test
    void theBareScriptsGetTheArgumentsOurLimiterSends() throws Exception {
        UnifiedJedis admin = redis.client();
        try (RedisStore store = RedisStore.connect(RedisSettings.of(redis.uri()))) {
            for (String algorithm : new String[] {"fixed-window", "sliding-log", "sliding-window", "token-bucket",
                    "leaky-bucket", "gcra"}) {
                RateLimiter limiter = RateLimiter.builder(store).policyName("args-" + algorithm).localDenyCache(false)
                        .rule(Rule.of(Algorithm.fromConfigName(algorithm), 1_000_000_000L, BenchRedis.WINDOW)).build();
                String source = LuaScript.limiter(algorithm).source();
                long started = System.nanoTime();
                Decision ours = limiter.tryAcquire("client");
                @SuppressWarnings("unchecked")
                List<Long> bare = (List<Long>) admin.eval(source, List.of(redis.key("bare-" + algorithm)),
                        ScriptBenchmark.admittedArgs(algorithm));
                long between = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertThat(bare.get(1)).as(algorithm + " admitted").isEqualTo(1L);
                assertThat(bare.get(2)).as(algorithm + " remaining").isEqualTo(ours.remaining());
                // A window's reset shrinks by the time between the two calls (a loaded machine: tens of ms).
                assertThat(bare.get(4) / 1000).as(algorithm + " reset, ms")
                        .isBetween(ours.resetAfter().toMillis() - between - 2, ours.resetAfter().toMillis() + 2);
            }
        }
    }
}
