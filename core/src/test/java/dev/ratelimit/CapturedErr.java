package dev.ratelimit;

import dev.ratelimit.testing.LibraryLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the library's loggers ({@code dev.ratelimit.*}) write while open, for tests that count the
 * lines an operator would read: never the rest of the process's stderr ({@link LibraryLog}).
 */
public final class CapturedErr implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    public CapturedErr() {
        System.setErr(new PrintStream(bytes, true));
    }

    /** What is logged while the action runs. */
    public static String during(Runnable action) {
        try (CapturedErr err = new CapturedErr()) {
            action.run();
            return err.text();
        }
    }

    /** The library's lines written while open ({@link LibraryLog}). */
    public String text() {
        return LibraryLog.ours(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
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
        System.setErr(original);
    }
}
