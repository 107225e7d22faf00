package dev.ratelimit.internal.http.trace;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * {@code tracing=opentelemetry}: the optional module's {@link DecisionTrace}, found by name so that
 * the core needs no OpenTelemetry. Checked when the policy is read, so a webapp without the jars
 * fails to start rather than run with traces that never say a word of the limiter.
 */
public final class TracingBinding {
    /** The class of {@code ratelimit-opentelemetry} and its factory of one policy's trace. */
    static final String OPENTELEMETRY_CLASS = "dev.ratelimit.opentelemetry.DecisionSpans";
    static final String FACTORY = "forPolicy";

    private final Method factory;

    private TracingBinding(Method factory) {
        this.factory = factory;
    }

    /**
     * @param kind {@code none} or {@code opentelemetry}, as {@link #kind} parsed it
     * @param label the setting as the user wrote it, for the message: {@code init-param 'tracing'}
     * @return null for {@code none}
     * @throws IllegalArgumentException when the classes are missing, naming the setting and the jars
     */
    public static TracingBinding of(String kind, String label, ClassLoader loader) {
        if (!"opentelemetry".equals(kind)) {
            return null;
        }
        try {
            Class.forName("io.opentelemetry.api.trace.Span", false, loader);
            Method factory = Class.forName(OPENTELEMETRY_CLASS, true, loader).getMethod(FACTORY, String.class);
            return new TracingBinding(factory);
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            throw new IllegalArgumentException(label + " is 'opentelemetry', but the OpenTelemetry API or the "
                    + "module is not on the class path (" + e + "); add dev.ratelimit:ratelimit-opentelemetry (it "
                    + "brings io.opentelemetry:opentelemetry-api) to the webapp, or set tracing=none", e);
        }
    }

    /** {@code none} or {@code opentelemetry}, in any case, as the {@code tracing} setting takes it. */
    public static String kind(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!lower.equals("none") && !lower.equals("opentelemetry")) {
            throw new IllegalArgumentException("not a tracing binding");
        }
        return lower;
    }

    /** The trace of one policy's decisions (its limiters, tiers included, share it). */
    public DecisionTrace forPolicy(String policyName) {
        try {
            return (DecisionTrace) factory.invoke(null, policyName);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot bind the tracing: " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot bind the tracing: " + e.getCause(), e.getCause());
        }
    }

    @Override
    public String toString() {
        return "opentelemetry";
    }
}
