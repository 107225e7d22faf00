package dev.ratelimit.testing.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/** The binding prints what slf4j-simple printed, at the levels slf4j-simple's properties give. */
class PrintingLoggerTest {
    private static final String NL = System.lineSeparator();

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private Logger logger(String name, Level threshold) {
        return new PrintingLogger(name, threshold.toInt(), console::add);
    }

    private static String thread() {
        return Thread.currentThread().getName();
    }

    @Test
    void aLineIsThreadLevelLoggerAndTheMessageWithItsArguments() {
        Logger log = logger("dev.ratelimit.RateLimiter", Level.INFO);

        log.info("plain");
        log.info("one {}", 1);
        log.warn("two {} and {}", "a", "b");
        log.error("three {}, {}, {}", 1, 2, 3);

        assertThat(console).containsExactly(
                "[" + thread() + "] INFO dev.ratelimit.RateLimiter - plain" + NL,
                "[" + thread() + "] INFO dev.ratelimit.RateLimiter - one 1" + NL,
                "[" + thread() + "] WARN dev.ratelimit.RateLimiter - two a and b" + NL,
                "[" + thread() + "] ERROR dev.ratelimit.RateLimiter - three 1, 2, 3" + NL);
    }

    @Test
    void aThrowableFollowsItsLineAsAStackTraceInTheSameWrite() {
        Logger log = logger("dev.ratelimit.RedisStore", Level.INFO);
        IllegalStateException failure = new IllegalStateException("refused", new RuntimeException("the cause"));

        log.warn("Redis at {} failed", "redis://localhost:1", failure);
        log.error("no arguments", failure);

        assertThat(console).hasSize(2);
        for (String event : console) {
            assertThat(event.split(NL)).satisfies(lines -> {
                assertThat(lines[1]).isEqualTo("java.lang.IllegalStateException: refused");
                assertThat(lines[2]).startsWith("\tat dev.ratelimit.testing.log.PrintingLoggerTest.");
            }).anyMatch(line -> line.equals("Caused by: java.lang.RuntimeException: the cause"));
        }
        assertThat(console.get(0)).startsWith("[" + thread() + "] WARN dev.ratelimit.RedisStore - Redis at "
                + "redis://localhost:1 failed" + NL);
        assertThat(console.get(1)).startsWith("[" + thread() + "] ERROR dev.ratelimit.RedisStore - no arguments" + NL);
    }

    @Test
    void eventsBelowTheLoggersLevelAreNeitherPrintedNorRecorded() {
        Logger log = logger("dev.ratelimit.levels", Level.WARN);
        try (LogRecorder recorder = LogRecorder.record("dev.ratelimit.levels")) {
            log.trace("t");
            log.debug("d {}", 1);
            log.info("i", new RuntimeException());
            log.warn("w");
            log.error("e");

            assertThat(console).containsExactly("[" + thread() + "] WARN dev.ratelimit.levels - w" + NL,
                    "[" + thread() + "] ERROR dev.ratelimit.levels - e" + NL);
            assertThat(recorder.text()).isEqualTo(String.join("", console));
        }
        assertThat(log.isInfoEnabled()).isFalse();
        assertThat(log.isWarnEnabled()).isTrue();
        assertThat(logger("x", Level.TRACE).isTraceEnabled()).isTrue();
    }

    @Test
    void levelsComeFromSlf4jSimplesProperties() {
        Map<String, String> properties = Map.of(
                "org.slf4j.simpleLogger.log.org.eclipse.jetty", "warn",
                "org.slf4j.simpleLogger.log.org.eclipse.jetty.ee10.servlet.BaseHolder", "ERROR",
                "org.slf4j.simpleLogger.log.quiet", "off",
                "org.slf4j.simpleLogger.log.odd", "loud");

        assertThat(PrintingLoggerFactory.threshold("org.eclipse.jetty.server.Server", properties::get))
                .as("a parent's level").isEqualTo(Level.WARN.toInt());
        assertThat(PrintingLoggerFactory.threshold("org.eclipse.jetty.ee10.servlet.BaseHolder", properties::get))
                .as("its own, before its parent's").isEqualTo(Level.ERROR.toInt());
        assertThat(PrintingLoggerFactory.threshold("org.eclipse", properties::get)).as("a child's is not a parent's")
                .isEqualTo(Level.INFO.toInt());
        assertThat(PrintingLoggerFactory.threshold("odd.one", properties::get)).as("a word it does not know")
                .isEqualTo(Level.INFO.toInt());
        assertThat(PrintingLoggerFactory.threshold("dev.ratelimit.RateLimiter",
                Map.of("org.slf4j.simpleLogger.defaultLogLevel", "debug")::get)).isEqualTo(Level.DEBUG.toInt());

        Logger off = new PrintingLogger("quiet", PrintingLoggerFactory.threshold("quiet", properties::get), console::add);
        off.error("never");
        assertThat(off.isErrorEnabled()).isFalse();
        assertThat(console).isEmpty();
    }
}
