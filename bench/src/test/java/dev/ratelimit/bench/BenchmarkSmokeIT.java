package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
                "## Redis commands per decision", "## Redis memory per client key", "## HTTP", "## Targets");
        for (String algorithm : new String[] {"fixed-window", "sliding-log", "sliding-window", "token-bucket",
                "leaky-bucket", "gcra"}) {
            assertThat(report).contains("| `" + algorithm + "` | distinct |", "| `" + algorithm + "` | hot-denied |");
        }
        assertThat(report).contains("| bucket4j token bucket (Jedis) | distinct |", "| Redisson RRateLimiter | distinct |",
                "| naive four-call sorted set | distinct |");
        assertThat(report).doesNotContain("| – |").as("every row has a figure");
        assertThat(report).contains("| `gcra` | 1.00 |");
    }
}
