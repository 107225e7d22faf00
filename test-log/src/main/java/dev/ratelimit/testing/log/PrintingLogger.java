package dev.ratelimit.testing.log;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Consumer;
import org.slf4j.event.Level;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MarkerIgnoringBase;
import org.slf4j.helpers.MessageFormatter;

/**
 * One logger of the tests' binding. An event its level lets through becomes the text slf4j-simple
 * would print ({@code [thread] LEVEL logger - message}, then the stack trace); that text goes to the
 * recorders open for the logger ({@link LogRecorder}) and, unless one of them mutes it, to the console
 * in one write, so lines of two threads never interleave.
 */
final class PrintingLogger extends MarkerIgnoringBase {
    private static final long serialVersionUID = 1L;

    /** Above {@link Level#ERROR}: {@code off} lets nothing through. */
    static final int OFF = Level.ERROR.toInt() + 10;

    private final int threshold;
    private final transient Consumer<String> console;

    PrintingLogger(String name, int threshold, Consumer<String> console) {
        this.name = name;
        this.threshold = threshold;
        this.console = console;
    }

    private boolean on(Level level) {
        return level.toInt() >= threshold;
    }

    private void format(Level level, String format, Object first, Object second) {
        if (on(level)) {
            emit(level, MessageFormatter.format(format, first, second));
        }
    }

    private void formatAll(Level level, String format, Object... arguments) {
        if (on(level)) {
            emit(level, MessageFormatter.arrayFormat(format, arguments));
        }
    }

    private void emit(Level level, FormattingTuple message) {
        emit(level, message.getMessage(), message.getThrowable());
    }

    private void emit(Level level, String message, Throwable thrown) {
        if (!on(level)) {
            return;
        }
        StringBuilder text = new StringBuilder(80).append('[').append(Thread.currentThread().getName()).append("] ")
                .append(level).append(' ').append(name).append(" - ").append(message).append(System.lineSeparator());
        if (thrown != null) {
            StringWriter trace = new StringWriter();
            thrown.printStackTrace(new PrintWriter(trace, true));
            text.append(trace);
        }
        String event = text.toString();
        if (!LogRecorder.take(name, event)) {
            console.accept(event);
        }
    }

    // The 30 methods of org.slf4j.Logger without a marker: each level's five shapes, one line each.

    @Override public boolean isTraceEnabled() { return on(Level.TRACE); }
    @Override public void trace(String msg) { emit(Level.TRACE, msg, null); }
    @Override public void trace(String format, Object arg) { format(Level.TRACE, format, arg, null); }
    @Override public void trace(String format, Object arg1, Object arg2) { format(Level.TRACE, format, arg1, arg2); }
    @Override public void trace(String format, Object... arguments) { formatAll(Level.TRACE, format, arguments); }
    @Override public void trace(String msg, Throwable t) { emit(Level.TRACE, msg, t); }

    @Override public boolean isDebugEnabled() { return on(Level.DEBUG); }
    @Override public void debug(String msg) { emit(Level.DEBUG, msg, null); }
    @Override public void debug(String format, Object arg) { format(Level.DEBUG, format, arg, null); }
    @Override public void debug(String format, Object arg1, Object arg2) { format(Level.DEBUG, format, arg1, arg2); }
    @Override public void debug(String format, Object... arguments) { formatAll(Level.DEBUG, format, arguments); }
    @Override public void debug(String msg, Throwable t) { emit(Level.DEBUG, msg, t); }

    @Override public boolean isInfoEnabled() { return on(Level.INFO); }
    @Override public void info(String msg) { emit(Level.INFO, msg, null); }
    @Override public void info(String format, Object arg) { format(Level.INFO, format, arg, null); }
    @Override public void info(String format, Object arg1, Object arg2) { format(Level.INFO, format, arg1, arg2); }
    @Override public void info(String format, Object... arguments) { formatAll(Level.INFO, format, arguments); }
    @Override public void info(String msg, Throwable t) { emit(Level.INFO, msg, t); }

    @Override public boolean isWarnEnabled() { return on(Level.WARN); }
    @Override public void warn(String msg) { emit(Level.WARN, msg, null); }
    @Override public void warn(String format, Object arg) { format(Level.WARN, format, arg, null); }
    @Override public void warn(String format, Object arg1, Object arg2) { format(Level.WARN, format, arg1, arg2); }
    @Override public void warn(String format, Object... arguments) { formatAll(Level.WARN, format, arguments); }
    @Override public void warn(String msg, Throwable t) { emit(Level.WARN, msg, t); }

    @Override public boolean isErrorEnabled() { return on(Level.ERROR); }
    @Override public void error(String msg) { emit(Level.ERROR, msg, null); }
    @Override public void error(String format, Object arg) { format(Level.ERROR, format, arg, null); }
    @Override public void error(String format, Object arg1, Object arg2) { format(Level.ERROR, format, arg1, arg2); }
    @Override public void error(String format, Object... arguments) { formatAll(Level.ERROR, format, arguments); }
    @Override public void error(String msg, Throwable t) { emit(Level.ERROR, msg, t); }
}
