package dev.ratelimit.testing.legacy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A webapp for a {@link LegacyContainer}, described as a web.xml would: context-params, filters
 * and servlets by class name with init-params as strings, each mapped to one URL pattern.
 */
public final class LegacyWebApp {
    /** A filter or servlet: its name, class, init-params and URL pattern. */
    public static final class Component {
        public final String name;
        public final String className;
        public final Map<String, String> initParams;
        public final String urlPattern;

        Component(String name, String className, Map<String, String> initParams, String urlPattern) {
            this.name = name;
            this.className = className;
            this.initParams = Collections.unmodifiableMap(new LinkedHashMap<>(initParams));
            this.urlPattern = urlPattern;
        }
    }

    public final String contextPath;
    public final Map<String, String> contextParams = new LinkedHashMap<>();
    public final List<Component> filters = new ArrayList<>();
    public final List<Component> servlets = new ArrayList<>();

    private LegacyWebApp(String contextPath) {
        this.contextPath = contextPath;
    }

    /** A webapp at {@code /name}, with nothing in it yet. */
    public static LegacyWebApp at(String contextPath) {
        return new LegacyWebApp(contextPath);
    }

    public LegacyWebApp contextParam(String name, String value) {
        contextParams.put(name, value);
        return this;
    }

    public LegacyWebApp filter(String name, String className, Map<String, String> initParams, String urlPattern) {
        filters.add(new Component(name, className, initParams, urlPattern));
        return this;
    }

    public LegacyWebApp servlet(String name, String className, Map<String, String> initParams, String urlPattern) {
        servlets.add(new Component(name, className, initParams, urlPattern));
        return this;
    }
}
