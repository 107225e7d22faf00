package dev.ratelimit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the library's loggers ({@code dev.ratelimit.*}) write while open, for tests that count the
 * lines an operator would read. The SLF4J simple logger writes every logger's lines to System.err,
 * looked up on each line, from every thread: a Jedis thread of another test class in this JVM (a
 * Sentinel listener retrying) writes there too. So the capture keeps only lines of the library's
 * loggers, with what follows each (a stack trace), never the rest of the process's stderr (issue 49).
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

    /** The library's lines written while open (see the class comment). */
    public String text() {
        return ours(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
    }

    /** A line slf4j-simple starts: {@code [thread] LEVEL logger - message} (a thread's name may hold brackets). */
    private static final Pattern HEADER = Pattern.compile("^\\[.*?\\] (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - ");

    /** The lines of {@code dev.ratelimit} loggers, each with the lines that follow it until the next logger's. */
    static String ours(String written) {
        StringBuilder kept = new StringBuilder();
        boolean keeping = false;
        for (String line : written.split("\\R")) {
            Matcher header = HEADER.matcher(line);
            if (header.find()) {
                keeping = header.group(2).startsWith("dev.ratelimit.");
            }
            if (keeping) {
                kept.append(line).append('\n');
            }
        }
        return kept.toString();
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
