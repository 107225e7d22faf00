package dev.ratelimit.internal.http.settings;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.internal.support.OptionalModule;

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

    private final OptionalModule module;

    private MetricsBinding(OptionalModule module) {
        this.module = module;
    }

    /** Null for {@code none}; missing classes throw, naming the setting as {@code label} says and the jars. */
    static MetricsBinding of(String kind, String label, ClassLoader loader) {
        if (!"micrometer".equals(kind)) {
            return null;
        }
        return new MetricsBinding(OptionalModule.find("metrics", "io.micrometer.core.instrument.Metrics", MICROMETER_CLASS,
                FACTORY, loader, e -> label + " is 'micrometer', but Micrometer is not on the class path (" + e
                        + "); add dev.ratelimit:ratelimit-micrometer and io.micrometer:micrometer-core to the webapp, "
                        + "or set metrics=none"));
    }

    /** {@code none} or {@code micrometer}, in any case, as {@link Settings#METRICS} takes it. */
    static String kind(String text) {
        return OptionalModule.kind(text, "micrometer", "metrics");
    }

    /** A new listener for one limiter of the webapp (its {@code webapp} tag: the context path, {@code /} for the root). */
    RateLimitListener listener(String webapp) {
        return (RateLimitListener) module.make(webapp);
    }

    @Override
    public String toString() {
        return "micrometer";
    }
}
