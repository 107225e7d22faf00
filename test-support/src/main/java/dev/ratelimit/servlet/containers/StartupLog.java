package dev.ratelimit.servlet.containers;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what a Tomcat context logs while it starts ({@link TomcatContainer}). */
final class StartupLog extends Handler {
    private final List<LogRecord> records = new ArrayList<>();

    @Override
    public synchronized void publish(LogRecord record) {
        records.add(record);
    }

    synchronized Optional<Throwable> firstThrown() {
        return records.stream()
                .filter(r -> r.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogRecord::getThrown)
                .filter(Objects::nonNull)
                .findFirst();
    }

    synchronized List<String> messages() {
        return records.stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .map(r -> r.getMessage())
                .toList();
    }

    synchronized void republish() {
        for (LogRecord r : records) {
            Logger.getLogger(r.getLoggerName() == null ? "" : r.getLoggerName()).log(r);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
