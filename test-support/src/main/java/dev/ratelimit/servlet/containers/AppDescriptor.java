package dev.ratelimit.servlet.containers;

import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable description of a web app as a {@code web.xml} would declare it: context-params,
 * filters (class NAME + string init-params + url-patterns, in declaration order = chain order) and
 * servlets. Classes are loaded by the container, by name, like from a deployment descriptor.
 *
 * <p>Unless {@link Builder#withoutEcho()} is called the app also has an {@code "echo"}
 * {@link EchoServlet} mapped to {@code /*}, declared after the other servlets. Every servlet is
 * loaded on startup, as {@code <load-on-startup>1</load-on-startup>} would, so one that cannot
 * start fails the deployment. Filters are mapped to the REQUEST dispatcher and nothing is
 * async-supported, the {@code web.xml} defaults, unless {@link Builder#dispatchers} and
 * {@link Builder#asyncSupported} say otherwise.
 *
 * <p>Or, with {@link Builder#webXml}, the descriptor itself as a WAR holds it: the container reads
 * it as it reads a deployed WAR's (its version, {@code <login-config>}, security constraints), with
 * its own default servlet for the webapp's files and the {@link Builder#user users} of its realm.
 */
public final class AppDescriptor {

    public static final String ECHO_SERVLET_NAME = "echo";

    private final String contextPath;
    private final Map<String, String> contextParams;
    private final List<String> listeners;
    private final List<FilterDecl> filters;
    private final List<ServletDecl> servlets;
    private final List<ErrorPageDecl> errorPages;
    private final Map<String, String> resources;
    private final String webXml;
    private final List<UserDecl> users;

    private AppDescriptor(Builder b) {
        if (b.webXml != null && !(b.filters.isEmpty() && b.servlets.isEmpty() && b.listeners.isEmpty()
                && b.contextParams.isEmpty() && b.errorPages.isEmpty())) {
            throw new IllegalStateException("an app with webXml declares everything in it");
        }
        this.webXml = b.webXml;
        this.users = List.copyOf(b.users);
        this.resources = Collections.unmodifiableMap(new LinkedHashMap<>(b.resources));
        this.contextPath = b.contextPath;
        this.contextParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.contextParams));
        this.listeners = List.copyOf(b.listeners);
        List<FilterDecl> filters = new ArrayList<>();
        for (FilterDecl f : b.filters) {
            filters.add(new FilterDecl(f.name(), f.className(), f.initParams(), f.urlPatterns(),
                    b.dispatchers.getOrDefault(f.name(), f.dispatchers()), b.asyncFilters.contains(f.name())));
        }
        this.filters = List.copyOf(filters);
        List<ServletDecl> all = new ArrayList<>(b.servlets);
        if (b.echo && b.webXml == null) {
            all.add(new ServletDecl(ECHO_SERVLET_NAME, EchoServlet.class.getName(), Map.of(), List.of("/*")));
        }
        List<ServletDecl> servlets = new ArrayList<>();
        for (ServletDecl s : all) {
            servlets.add(new ServletDecl(s.name(), s.className(), s.initParams(), s.urlPatterns(),
                    b.asyncServlets.contains(s.name())));
        }
        this.servlets = List.copyOf(servlets);
        this.errorPages = List.copyOf(b.errorPages);
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

    /** Files of the webapp (what {@code ServletContext.getResourceAsStream} reads), by path, as UTF-8 text. */
    public Map<String, String> resources() {
        return resources;
    }

    /** {@code WEB-INF/web.xml} as written, for the container to read; null when the app is declared in code. */
    public String webXml() {
        return webXml;
    }

    /** The users of the container's realm, for a descriptor's {@code <login-config>}. */
    public List<UserDecl> users() {
        return users;
    }

    /** Error pages in declaration order. */
    public List<ErrorPageDecl> errorPages() {
        return errorPages;
    }

    @Override
    public String toString() {
        return "AppDescriptor[" + (contextPath.isEmpty() ? "/" : contextPath) + ", filters=" + filters.stream().map(FilterDecl::name).toList() + "]";
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
        private final List<String> listeners = new ArrayList<>();
        private final List<FilterDecl> filters = new ArrayList<>();
        private final List<ServletDecl> servlets = new ArrayList<>();
        private final Map<String, Set<DispatcherType>> dispatchers = new LinkedHashMap<>();
        private final Set<String> asyncFilters = new HashSet<>();
        private final Set<String> asyncServlets = new HashSet<>();
        private final List<ErrorPageDecl> errorPages = new ArrayList<>();
        private final Map<String, String> resources = new LinkedHashMap<>();
        private final List<UserDecl> users = new ArrayList<>();
        private String webXml;
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

        /**
         * The {@code <dispatcher>}s of a declared filter's mapping, instead of REQUEST alone.
         */
        public Builder dispatchers(String filterName, DispatcherType first, DispatcherType... more) {
            if (filters.stream().noneMatch(f -> f.name().equals(filterName))) {
                throw new IllegalArgumentException("no filter '" + filterName + "'");
            }
            dispatchers.put(filterName, EnumSet.of(first, more));
            return this;
        }

        /**
         * {@code <async-supported>true</async-supported>} for the named filters and servlets
         * ({@link #ECHO_SERVLET_NAME} for the echo servlet); a name may be both.
         */
        public Builder asyncSupported(String... names) {
            for (String name : names) {
                boolean filter = filters.stream().anyMatch(f -> f.name().equals(name));
                boolean servlet = name.equals(ECHO_SERVLET_NAME) || servlets.stream().anyMatch(s -> s.name().equals(name));
                if (!filter && !servlet) {
                    throw new IllegalArgumentException("no filter or servlet '" + name + "'");
                }
                if (filter) {
                    asyncFilters.add(name);
                }
                if (servlet) {
                    asyncServlets.add(name);
                }
            }
            return this;
        }

        /** An {@code <error-page>}: the container dispatches (ERROR) to {@code location} for that status. */
        public Builder errorPage(int errorCode, String location) {
            errorPages.add(new ErrorPageDecl(errorCode, location));
            return this;
        }

        /**
         * A file of the webapp, e.g. {@code /WEB-INF/ratelimit/denied.html}, written as UTF-8 where
         * the container reads the webapp's resources from.
         */
        public Builder resource(String path, String content) {
            if (!path.startsWith("/") || path.contains("..")) {
                throw new IllegalArgumentException("a resource path starts with '/' and stays in the webapp: " + path);
            }
            resources.put(path, Objects.requireNonNull(content, "content"));
            return this;
        }

        /**
         * The webapp's {@code WEB-INF/web.xml} as written, read by the container as a deployed WAR's
         * (its {@code version}, {@code <async-supported>}, {@code <login-config>}, security constraints),
         * beside the container's default servlet for the {@link #resource files}. Declares the whole
         * webapp: no filter, servlet, listener, context-param or error page in code, and no echo servlet.
         */
        public Builder webXml(String xml) {
            webXml = Objects.requireNonNull(xml, "xml");
            return this;
        }

        /** A user of the container's realm (for the descriptor's {@code <login-config>}), with its roles. */
        public Builder user(String name, String password, String... roles) {
            users.add(new UserDecl(name, password, Arrays.asList(roles)));
            return this;
        }

        /** Do not add the default {@code "echo"} servlet on {@code /*}. */
        public Builder withoutEcho() {
            echo = false;
            return this;
        }

        public AppDescriptor build() {
            return new AppDescriptor(this);
        }
    }
}
