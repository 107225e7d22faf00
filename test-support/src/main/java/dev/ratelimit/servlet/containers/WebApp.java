package dev.ratelimit.servlet.containers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable description of a web app as a {@code web.xml} would declare it: context-params,
 * filters (class NAME + string init-params + url-patterns, in declaration order = chain order) and
 * servlets. Classes are loaded by the container, by name, like from a deployment descriptor.
 *
 * <p>Unless {@link Builder#withoutEcho()} is called the app also has an {@code "echo"}
 * {@link EchoServlet} mapped to {@code /*}, declared after the other servlets. Every servlet is
 * loaded on startup, as {@code <load-on-startup>1</load-on-startup>} would, so one that cannot
 * start fails the deployment.
 */
public final class WebApp {

    public static final String ECHO_SERVLET_NAME = "echo";

    /** A {@code <filter>} with its {@code <filter-mapping>} (dispatcher REQUEST). */
    public record FilterDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns) {
        public FilterDecl {
            initParams = Collections.unmodifiableMap(new LinkedHashMap<>(initParams));
            urlPatterns = List.copyOf(urlPatterns);
        }
    }

    /** A {@code <servlet>} with its {@code <servlet-mapping>}. */
    public record ServletDecl(String name, String className, Map<String, String> initParams, List<String> urlPatterns) {
        public ServletDecl {
            initParams = Collections.unmodifiableMap(new LinkedHashMap<>(initParams));
            urlPatterns = List.copyOf(urlPatterns);
        }
    }

    private final String contextPath;
    private final Map<String, String> contextParams;
    private final List<String> listeners;
    private final List<FilterDecl> filters;
    private final List<ServletDecl> servlets;

    private WebApp(Builder b) {
        this.contextPath = b.contextPath;
        this.contextParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.contextParams));
        this.listeners = List.copyOf(b.listeners);
        this.filters = List.copyOf(b.filters);
        List<ServletDecl> all = new ArrayList<>(b.servlets);
        if (b.echo) {
            all.add(new ServletDecl(ECHO_SERVLET_NAME, EchoServlet.class.getName(), Map.of(), List.of("/*")));
        }
        this.servlets = List.copyOf(all);
    }

    /** @param contextPath {@code "/app"}, or {@code ""} (or {@code "/"}) for the root context */
    public static Builder builder(String contextPath) {
        return new Builder(normalizeContextPath(contextPath));
    }

    /** {@code "/app"} or {@code ""} for the root context. */
    public String contextPath() {
        return contextPath;
    }

    public Map<String, String> contextParams() {
        return contextParams;
    }

    /** Listener class names, as {@code <listener>} elements list them. */
    public List<String> listeners() {
        return listeners;
    }

    public List<FilterDecl> filters() {
        return filters;
    }

    /** Servlets in declaration order, the echo servlet (if any) last. */
    public List<ServletDecl> servlets() {
        return servlets;
    }

    @Override
    public String toString() {
        return "WebApp[" + (contextPath.isEmpty() ? "/" : contextPath) + ", filters=" + filters.stream().map(FilterDecl::name).toList() + "]";
    }

    static String normalizeContextPath(String contextPath) {
        Objects.requireNonNull(contextPath, "contextPath");
        if (contextPath.isEmpty() || contextPath.equals("/")) {
            return "";
        }
        if (!contextPath.startsWith("/") || contextPath.endsWith("/")) {
            throw new IllegalArgumentException("context path must be \"\" or start with '/' and not end with '/': " + contextPath);
        }
        return contextPath;
    }

    public static final class Builder {
        private final String contextPath;
        private final Map<String, String> contextParams = new LinkedHashMap<>();
        private final List<String> listeners = new java.util.ArrayList<>();
        private final List<FilterDecl> filters = new ArrayList<>();
        private final List<ServletDecl> servlets = new ArrayList<>();
        private boolean echo = true;

        private Builder(String contextPath) {
            this.contextPath = contextPath;
        }

        /** A {@code <context-param>}. */
        public Builder contextParam(String name, String value) {
            contextParams.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * A {@code <filter>} plus its {@code <filter-mapping>}; filters run in declaration order.
         *
         * @param initParams init-params, as strings (null = none)
         * @param urlPatterns at least one, e.g. {@code "/*"}, {@code "/api/*"}, {@code "*.json"}
         */
        public Builder filter(String filterName, String filterClassName, Map<String, String> initParams, String... urlPatterns) {
            Objects.requireNonNull(filterName, "filterName");
            Objects.requireNonNull(filterClassName, "filterClassName");
            if (urlPatterns == null || urlPatterns.length == 0) {
                throw new IllegalArgumentException("filter '" + filterName + "' needs at least one url pattern");
            }
            if (filters.stream().anyMatch(f -> f.name().equals(filterName))) {
                throw new IllegalArgumentException("duplicate filter name '" + filterName + "'");
            }
            filters.add(new FilterDecl(filterName, filterClassName, initParams == null ? Map.of() : initParams, Arrays.asList(urlPatterns)));
            return this;
        }

        /** Same as {@link #filter(String, String, Map, String...)} with {@code filterClass.getName()}. */
        public Builder filter(String filterName, Class<? extends jakarta.servlet.Filter> filterClass, Map<String, String> initParams, String... urlPatterns) {
            return filter(filterName, filterClass.getName(), initParams, urlPatterns);
        }

        /** A {@code <servlet>} plus its {@code <servlet-mapping>}. */
        public Builder servlet(String servletName, String servletClassName, String... urlPatterns) {
            return servlet(servletName, servletClassName, Map.of(), urlPatterns);
        }

        /** A {@code <servlet>} with init-params plus its {@code <servlet-mapping>}. */
        public Builder servlet(String servletName, String servletClassName, Map<String, String> initParams, String... urlPatterns) {
            Objects.requireNonNull(servletName, "servletName");
            Objects.requireNonNull(servletClassName, "servletClassName");
            if (urlPatterns == null || urlPatterns.length == 0) {
                throw new IllegalArgumentException("servlet '" + servletName + "' needs at least one url pattern");
            }
            if (servletName.equals(ECHO_SERVLET_NAME) || servlets.stream().anyMatch(s -> s.name().equals(servletName))) {
                throw new IllegalArgumentException("duplicate servlet name '" + servletName + "'");
            }
            servlets.add(new ServletDecl(servletName, servletClassName, initParams == null ? Map.of() : initParams, Arrays.asList(urlPatterns)));
            return this;
        }

        /** A {@code <listener>}: a ServletContextListener class, loaded by the container by name. */
        public Builder listener(String listenerClassName) {
            listeners.add(Objects.requireNonNull(listenerClassName, "listenerClassName"));
            return this;
        }

        /** Do not add the default {@code "echo"} servlet on {@code /*}. */
        public Builder withoutEcho() {
            echo = false;
            return this;
        }

        public WebApp build() {
            return new WebApp(this);
        }
    }
}
