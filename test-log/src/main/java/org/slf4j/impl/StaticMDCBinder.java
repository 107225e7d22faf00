package org.slf4j.impl;

import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;

/** SLF4J 1.7's MDC binding: none, as slf4j-simple has none (it prints no MDC values). */
public final class StaticMDCBinder {
    /** The one binder, as older SLF4J versions read it. */
    public static final StaticMDCBinder SINGLETON = new StaticMDCBinder();

    private StaticMDCBinder() {
    }

    /** The one binder, as SLF4J 1.7 asks for it. */
    public static StaticMDCBinder getSingleton() {
        return SINGLETON;
    }

    /** An adapter that keeps nothing. */
    public MDCAdapter getMDCA() {
        return new NOPMDCAdapter();
    }

    /** The adapter's class name, for SLF4J's reports. */
    public String getMDCAdapterClassStr() {
        return NOPMDCAdapter.class.getName();
    }
}
