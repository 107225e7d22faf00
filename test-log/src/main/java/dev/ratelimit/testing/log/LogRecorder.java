package dev.ratelimit.testing.log;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The lines a test's own loggers write while it is open, for a test that reads what an operator would:
 * never the process's stderr, where other tests' threads (a Jedis listener retrying, a container) write
 * too. It records the events of the loggers named {@code prefix} or below it ({@code dev.ratelimit}
 * records {@code dev.ratelimit.RateLimiter}, not {@code dev.ratelimitx}), from every thread, as the
 * text the tests' binding prints ({@code [thread] LEVEL logger - message}, then any stack trace): the
 * events their levels let through, nothing below. Its text stays readable after {@link #close()}.
 */
public final class LogRecorder implements AutoCloseable {
    private static final List<LogRecorder> OPEN = new CopyOnWriteArrayList<>();

    private final String prefix;
    private final boolean mute;
    private final StringBuilder text = new StringBuilder();

    private LogRecorder(String prefix, boolean mute) {
        this.prefix = prefix;
        this.mute = mute;
    }

    /** Records the events of the loggers under {@code prefix}; they are printed as well. */
    public static LogRecorder record(String prefix) {
        return open(new LogRecorder(prefix, false));
    }

    /**
     * Records the events of the loggers under {@code prefix} and keeps them off the console while open,
     * for a run that logs every failure it provokes on purpose.
     */
    public static LogRecorder mute(String prefix) {
        return open(new LogRecorder(prefix, true));
    }

    private static LogRecorder open(LogRecorder recorder) {
        OPEN.add(recorder);
        return recorder;
    }

    /** What was recorded, one event after the other, each ending with a line separator. */
    public synchronized String text() {
        return text.toString();
    }

    /** Stops recording; what was recorded stays. */
    @Override
    public void close() {
        OPEN.remove(this);
    }

    private boolean covers(String logger) {
        return prefix.isEmpty() || (logger.startsWith(prefix)
                && (logger.length() == prefix.length() || logger.charAt(prefix.length()) == '.'));
    }

    private synchronized void append(String event) {
        text.append(event);
    }

    /** Hands an event of {@code logger} to the recorders open for it; whether one of them mutes it. */
    static boolean take(String logger, String event) {
        boolean muted = false;
        for (LogRecorder recorder : OPEN) {
            if (recorder.covers(logger)) {
                recorder.append(event);
                muted |= recorder.mute;
            }
        }
        return muted;
    }
}
