package dev.ratelimit.servlet;

import dev.ratelimit.testing.log.LogRecorder;

/**
 * What the filter and the library log while an action runs, from every thread (the container's
 * too): the lines of the {@code dev.ratelimit} loggers as the tests' SLF4J binding prints them,
 * recorded by it, never taken from the process's stderr.
 */
final class CapturedLog {
    /** An action that may throw anything a test step throws. */
    interface Action {
        void run() throws Exception;
    }

    private CapturedLog() {
    }

    static String during(Action action) throws Exception {
        try (LogRecorder log = LogRecorder.record("dev.ratelimit")) {
            action.run();
            return log.text();
        }
    }

    /** How many lines of the log contain the text. */
    static long lines(String log, String text) {
        return log.lines().filter(line -> line.contains(text)).count();
    }
}
