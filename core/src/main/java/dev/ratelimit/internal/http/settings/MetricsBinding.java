package dev.ratelimit.internal.http.settings;

import dev.ratelimit.RateLimitListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * {@code metrics=micrometer}: the optional module's listener, found by name so that the core
 * needs no Micrometer. Checked when the policy is read, so a webapp without the jars fails to
 * start rather than run unobserved. Each limiter gets a listener of its own (it binds that
 * limiter's gauge), which the policy's runtime closes to remove its meters.
 */
final class MetricsBinding {
    /** The class of {@code ratelimit-micrometer} and its factory over {@code Metrics.globalRegistry}. */
    static final String MICROMETER_CLASS = "dev.ratelimit.micrometer.RateLimiterMetrics";
    static final String FACTORY = "globalRegistry";

    private final Method factory;

    private MetricsBinding(Method factory) {
        this.factory = factory;
    }

    /**
     * @param kind {@code none} or {@code micrometer}, as {@link Settings#METRICS} parsed it
     * @return null for {@code none}
     * @throws IllegalArgumentException when the classes are missing, naming the setting and the jars
     */
    static MetricsBinding of(String kind, String label, ClassLoader loader) {
        if (!"micrometer".equals(kind)) {
            return null;
        }
        try {
            Class.forName("io.micrometer.core.instrument.Metrics", false, loader);
            Method factory = Class.forName(MICROMETER_CLASS, true, loader).getMethod(FACTORY, String.class);
            return new MetricsBinding(factory);
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            throw new IllegalArgumentException(label + " is 'micrometer', but Micrometer is not on the class path ("
                    + e + "); add dev.ratelimit:ratelimit-micrometer and io.micrometer:micrometer-core to the "
                    + "webapp, or set metrics=none", e);
        }
    }

    /** {@code none} or {@code micrometer}, in any case, as {@link Settings#METRICS} takes it. */
    static String kind(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!lower.equals("none") && !lower.equals("micrometer")) {
            throw new IllegalArgumentException("not a metrics binding");
        }
        return lower;
    }

    /** A new listener for one limiter of the webapp (its {@code webapp} tag: the context path, {@code /} for the root). */
    RateLimitListener listener(String webapp) {
        try {
            return (RateLimitListener) factory.invoke(null, webapp);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot bind the metrics: " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot bind the metrics: " + e.getCause(), e.getCause());
        }
    }

    @Override
    public String toString() {
        return "micrometer";
    }
}
