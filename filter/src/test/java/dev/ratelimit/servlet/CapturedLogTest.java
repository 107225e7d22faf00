package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.log.PrintingLoggerFactory;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The filter's tests (and the javax build's, made from them) read the library's lines through the tests' binding. */
class CapturedLogTest {
    @Test
    void theLibrarysLinesAreRecordedAndAnotherLoggersAreNot() throws Exception {
        String log = CapturedLog.during(() -> {
            LoggerFactory.getLogger("org.eclipse.jetty.server.Server").error("a container's line");
            LoggerFactory.getLogger(RateLimitFilter.class).warn("the filter's line [{}]", "CODE");
        });

        assertThat(log).isEqualTo("[" + Thread.currentThread().getName() + "] WARN " + RateLimitFilter.class.getName()
                + " - the filter's line [CODE]" + System.lineSeparator());
        assertThat(CapturedLog.lines(log, "[CODE]")).isEqualTo(1);
    }

    @Test
    void theTestsLogThroughTheRecordingBindingAlone() throws Exception {
        assertThat(Collections.list(getClass().getClassLoader().getResources("org/slf4j/impl/StaticLoggerBinder.class")))
                .as("one SLF4J binding on the test class path").hasSize(1);
        assertThat(LoggerFactory.getILoggerFactory()).isInstanceOf(PrintingLoggerFactory.class);
    }
}
