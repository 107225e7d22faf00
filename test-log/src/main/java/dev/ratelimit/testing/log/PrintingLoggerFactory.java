package dev.ratelimit.testing.log;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.UnaryOperator;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The tests' loggers, one per name. Their levels come from the system properties slf4j-simple reads,
 * so what the build already sets keeps working: {@code org.slf4j.simpleLogger.log.<name or a parent>}
 * (the test support quiets Jetty with it) and {@code org.slf4j.simpleLogger.defaultLogLevel}, else
 * {@code info}; read when a logger is first asked for, as slf4j-simple does. Its other properties
 * (dates, short names, a log file) are not read: the build sets none.
 */
public final class PrintingLoggerFactory implements ILoggerFactory {
    static final String LEVEL_PREFIX = "org.slf4j.simpleLogger.log.";
    static final String DEFAULT_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();

    @Override
    public Logger getLogger(String name) {
        return loggers.computeIfAbsent(name, PrintingLoggerFactory::create);
    }

    private static Logger create(String name) {
        return new PrintingLogger(name, threshold(name, System::getProperty), PrintingLoggerFactory::toStandardError);
    }

    /** Where slf4j-simple writes: the stream System.err is at the time of the event. */
    private static void toStandardError(String event) {
        System.err.print(event);
        System.err.flush();
    }

    /** The level of the logger {@code name}: its own property, else its nearest parent's, else the default. */
    static int threshold(String name, UnaryOperator<String> properties) {
        for (String scope = name; ; scope = scope.substring(0, scope.lastIndexOf('.'))) {
            String level = properties.apply(LEVEL_PREFIX + scope);
            if (level != null) {
                return level(level);
            }
            if (scope.indexOf('.') < 0) {
                break;
            }
        }
        String fallback = properties.apply(DEFAULT_LEVEL);
        return fallback == null ? Level.INFO.toInt() : level(fallback);
    }

    /** A level's name as slf4j-simple reads it: a word it does not know is {@code info}. */
    private static int level(String text) {
        String word = text.trim().toUpperCase(Locale.ROOT);
        if (word.equals("OFF")) {
            return PrintingLogger.OFF;
        }
        for (Level level : Level.values()) {
            if (level.name().equals(word)) {
                return level.toInt();
            }
        }
        return Level.INFO.toInt();
    }
}
