package dev.ratelimit;

import dev.ratelimit.testing.log.LogRecorder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the library's loggers ({@code dev.ratelimit} and below) log while open, from every thread, for
 * tests that count the lines an operator would read: recorded by the tests' SLF4J binding as it
 * prints them ({@code [thread] LEVEL logger - message}, then any stack trace), never taken from the
 * process's stderr, where other tests' threads (a Jedis listener retrying) write too.
 */
public final class CapturedErr implements AutoCloseable {
    private static final String LIBRARY = "dev.ratelimit";

    private final LogRecorder recorder;

    /** Records the library's lines; they are printed as well. */
    public CapturedErr() {
        this(LogRecorder.record(LIBRARY));
    }

    private CapturedErr(LogRecorder recorder) {
        this.recorder = recorder;
    }

    /** Records the library's lines and keeps them off the console, for runs that provoke failures on purpose. */
    public static CapturedErr quiet() {
        return new CapturedErr(LogRecorder.mute(LIBRARY));
    }

    /** What is logged while the action runs. */
    public static String during(Runnable action) {
        try (CapturedErr err = new CapturedErr()) {
            action.run();
            return err.text();
        }
    }

    /** The library's lines logged while open (still readable after {@link #close()}). */
    public String text() {
        return recorder.text();
    }

    /** How often {@code part} occurs in {@code text}. */
    public static int count(String text, String part) {
        Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    @Override
    public void close() {
        recorder.close();
    }
}
