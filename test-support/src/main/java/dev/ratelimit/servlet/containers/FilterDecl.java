package dev.ratelimit.servlet.containers;

import jakarta.servlet.DispatcherType;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A {@code <filter>} with its {@code <filter-mapping>} and its {@code <dispatcher>}s. */
public record FilterDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns,
        Set<DispatcherType> dispatchers, boolean asyncSupported) {
    public FilterDecl {
        initParams = Collections.unmodifiableMap(new LinkedHashMap<>(initParams));
        urlPatterns = List.copyOf(urlPatterns);
        if (dispatchers.isEmpty()) {
            throw new IllegalArgumentException("filter '" + name + "' needs at least one dispatcher");
        }
        dispatchers = Collections.unmodifiableSet(EnumSet.copyOf(dispatchers));
    }

    /** Mapped to REQUEST only, not async-supported: the {@code web.xml} defaults. */
    public FilterDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns) {
        this(name, className, initParams, urlPatterns, EnumSet.of(DispatcherType.REQUEST), false);
    }
}
