package dev.ratelimit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the SLF4J simple logger writes to System.err while open (it looks System.err up on each
 * line), for tests that count the lines an operator would read.
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

    public String text() {
        return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
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
