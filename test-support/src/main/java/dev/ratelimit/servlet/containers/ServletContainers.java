package dev.ratelimit.servlet.containers;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * JUnit sources for tests that must pass on both containers.
 *
 * <pre>{@code
 * // a fresh container per invocation (JUnit closes AutoCloseable arguments after each invocation):
 * @ParameterizedTest
 * @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#both")
 * void works(ServletContainer container) throws Exception { URI base = container.deploy(app); ... }
 *
 * // one server per kind for a whole test class:
 * static final ServletContainers.Pool POOL = new ServletContainers.Pool();
 * @AfterAll static void stop() { POOL.close(); }
 * @ParameterizedTest
 * @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
 * void works(ServletContainers.Kind kind) { ServletContainer c = POOL.get(kind); ... }
 * }</pre>
 */
public final class ServletContainers {

    private ServletContainers() {
    }

    /** A container factory; {@code toString()} is {@code "tomcat"} / {@code "jetty"}. */
    public enum Kind implements Supplier<ServletContainer> {
        TOMCAT {
            @Override
            public ServletContainer get() {
                return ServletContainer.tomcat();
            }
        },
        JETTY {
            @Override
            public ServletContainer get() {
                return ServletContainer.jetty();
            }
        };

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Fresh (not yet started) Tomcat and Jetty containers; the caller (or JUnit) closes them. */
    public static Stream<ServletContainer> both() {
        return kinds().map(Kind::get);
    }

    /** The two factories. */
    public static Stream<Kind> kinds() {
        return Arrays.stream(Kind.values());
    }

    /** Lazily creates one container per kind and closes them all on {@link #close()}. */
    public static final class Pool implements AutoCloseable {
        private final Map<Kind, ServletContainer> containers = new EnumMap<>(Kind.class);

        public synchronized ServletContainer get(Kind kind) {
            return containers.computeIfAbsent(kind, Kind::get);
        }

        @Override
        public synchronized void close() {
            RuntimeException first = null;
            for (ServletContainer c : containers.values()) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            containers.clear();
            if (first != null) {
                throw first;
            }
        }
    }
}
