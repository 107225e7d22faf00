package dev.ratelimit.servlet;

import dev.ratelimit.testing.LibraryLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the filter and the library log while an action runs: slf4j-simple, the tests' binding, writes
 * each line to whatever {@code System.err} is at that moment, from every thread; only the library's
 * loggers' lines are kept ({@link LibraryLog}), and the whole is echoed to the real stderr.
 */
final class CapturedLog {
    /** An action that may throw anything a test step throws. */
    interface Action {
        void run() throws Exception;
    }

    private CapturedLog() {
    }

    static String during(Action action) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, "UTF-8"));
        try {
            action.run();
        } finally {
            System.setErr(err);
        }
        String text = new String(log.toByteArray(), StandardCharsets.UTF_8);
        err.print(text);
        return LibraryLog.ours(text);
    }

    /** How many lines of the log contain the text. */
    static long lines(String log, String text) {
        return log.lines().filter(line -> line.contains(text)).count();
    }
}
