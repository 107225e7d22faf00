package org.slf4j.impl;

import dev.ratelimit.testing.log.PrintingLoggerFactory;
import org.slf4j.ILoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

/** Where SLF4J 1.7 finds its binding: the tests' printing and recording loggers. */
public final class StaticLoggerBinder implements LoggerFactoryBinder {
    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();

    /**
     * The API version this binding is written for; SLF4J checks it at start. Not final, so that the
     * compiler does not fold it into SLF4J's check.
     */
    public static String REQUESTED_API_VERSION = "1.6.99";

    private final ILoggerFactory factory = new PrintingLoggerFactory();

    private StaticLoggerBinder() {
    }

    /** The one binder, as SLF4J asks for it. */
    public static StaticLoggerBinder getSingleton() {
        return SINGLETON;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public String getLoggerFactoryClassStr() {
        return PrintingLoggerFactory.class.getName();
    }
}
