package org.slf4j.impl;

import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MarkerFactoryBinder;

/** SLF4J 1.7's marker binding: SLF4J's own markers (the loggers ignore them, as slf4j-simple's do). */
public final class StaticMarkerBinder implements MarkerFactoryBinder {
    /** The one binder, as older SLF4J versions read it. */
    public static final StaticMarkerBinder SINGLETON = new StaticMarkerBinder();

    private final IMarkerFactory markers = new BasicMarkerFactory();

    private StaticMarkerBinder() {
    }

    /** The one binder, as SLF4J 1.7 asks for it. */
    public static StaticMarkerBinder getSingleton() {
        return SINGLETON;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public String getMarkerFactoryClassStr() {
        return BasicMarkerFactory.class.getName();
    }
}
