package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.LibraryLog;
import org.junit.jupiter.api.Test;

/**
 * Issue 49: a test that captures log lines reads the library's, never the process's stderr, where a
 * Jedis thread of another test class (a Sentinel listener retrying) writes too.
 */
class CapturedErrTest {
    @Test
    void onlyTheLibrarysLinesAndWhatFollowsThemAreKept() {
        String written = String.join("\n",
                "[main] WARN dev.ratelimit.RateLimiter - Rate limit policy 'api' cannot reach Redis",
                "redis.clients.jedis.exceptions.JedisConnectionException: refused",
                "\tat redis.clients.jedis.Connection.connect(Connection.java:1)",
                "[MasterListener-mymaster-[127.0.0.1:26379]] WARN redis.clients.jedis.SentinelPool - Lost connection to "
                        + "Sentinel 127.0.0.1:26379. Sleeping 5000ms and retrying.",
                "[main] INFO dev.ratelimit.internal.http.webapp.PolicyRuntime - Rate limit policy 'api' stopped",
                "");

        String ours = LibraryLog.ours(written);

        assertThat(ours).contains("cannot reach Redis", "JedisConnectionException: refused", "\tat redis.clients.jedis",
                "policy 'api' stopped").doesNotContain("Lost connection to Sentinel");
        assertThat(CapturedErr.count(ours, "WARN")).isEqualTo(1);
    }

    @Test
    void aLineOfAnotherThreadsLoggerWrittenDuringTheCaptureIsLeftOut() {
        String text = CapturedErr.during(() -> {
            System.err.println("[other] WARN redis.clients.jedis.SentinelPool - Lost connection to Sentinel");
            org.slf4j.LoggerFactory.getLogger(RateLimiter.class).warn("the library's own line");
        });

        assertThat(text).contains("the library's own line").doesNotContain("Lost connection");
    }
}
