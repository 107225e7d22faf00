package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.log.PrintingLoggerFactory;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 49: a test that captures log lines reads the library's, never the process's stderr, where a
 * Jedis thread of another test class (a Sentinel listener retrying) writes too.
 */
class CapturedErrTest {
    @Test
    void theLibrarysLinesWithTheirStackTracesAreKeptAndAnotherLoggersAreNot() {
        String text = CapturedErr.during(() -> {
            LoggerFactory.getLogger("redis.clients.jedis.SentinelPool").warn("Lost connection to Sentinel");
            System.err.println("[CapturedErrTest] dev.ratelimit: written to stderr, not logged");
            LoggerFactory.getLogger(RateLimiter.class).warn("Rate limit policy 'api' cannot reach Redis",
                    new IllegalStateException("refused"));
        });

        assertThat(text).startsWith("[" + Thread.currentThread().getName() + "] WARN dev.ratelimit.RateLimiter - "
                + "Rate limit policy 'api' cannot reach Redis" + System.lineSeparator()
                + "java.lang.IllegalStateException: refused" + System.lineSeparator() + "\tat dev.ratelimit.")
                .doesNotContain("Lost connection", "written to stderr");
        assertThat(CapturedErr.count(text, "WARN")).isEqualTo(1);
    }

    @Test
    void theLibrarysLinesFromAnotherThreadAreKept() {
        String text = CapturedErr.during(() -> {
            Thread other = new Thread(() -> LoggerFactory.getLogger("dev.ratelimit.RedisStore").info("from a pool"),
                    "other-thread");
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        assertThat(text).isEqualTo("[other-thread] INFO dev.ratelimit.RedisStore - from a pool" + System.lineSeparator());
    }

    @Test
    void theTestsLogThroughTheRecordingBindingAlone() throws Exception {
        assertThat(Collections.list(getClass().getClassLoader().getResources("org/slf4j/impl/StaticLoggerBinder.class")))
                .as("one SLF4J binding on core's test class path").hasSize(1);
        assertThat(LoggerFactory.getILoggerFactory()).isInstanceOf(PrintingLoggerFactory.class);
    }
}
