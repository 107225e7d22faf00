package dev.ratelimit.testing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The library's own lines in what was written to System.err, for tests that count the lines an
 * operator would read. The SLF4J simple logger, the tests' binding, writes every logger's lines
 * there, from every thread: a Jedis thread of another test class in the same JVM (a Sentinel
 * listener retrying), or a container's, writes there too. So a capture keeps only the lines of
 * {@code dev.ratelimit} loggers, each with what follows it (a stack trace), and leaves the rest of
 * the process's stderr out.
 */
public final class LibraryLog {
    /** A line slf4j-simple starts: {@code [thread] LEVEL logger - message} (a thread's name may hold brackets). */
    private static final Pattern HEADER = Pattern.compile("^\\[.*?\\] (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - ");

    private LibraryLog() {
    }

    /** The lines of {@code dev.ratelimit} loggers in {@code written}, each with the lines that follow it until the next logger's. */
    public static String ours(String written) {
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
}
