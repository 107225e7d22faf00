package dev.ratelimit.servlet.containers;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A {@code <servlet>} with its {@code <servlet-mapping>}. */
public record ServletDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns,
        boolean asyncSupported) {
    public ServletDecl {
        initParams = Collections.unmodifiableMap(new LinkedHashMap<>(initParams));
        urlPatterns = List.copyOf(urlPatterns);
    }

    /** Not async-supported: the {@code web.xml} default. */
    public ServletDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns) {
        this(name, className, initParams, urlPatterns, false);
    }
}
