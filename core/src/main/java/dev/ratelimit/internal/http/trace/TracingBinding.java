package dev.ratelimit.internal.http.trace;

import dev.ratelimit.internal.support.OptionalModule;

/**
 * {@code tracing=opentelemetry}: the optional module's {@link DecisionTrace}, found by name so that
 * the core needs no OpenTelemetry. Checked when the policy is read, so a webapp without the jars
 * fails to start rather than run with traces that never say a word of the limiter.
 */
public final class TracingBinding {
    /** The class of {@code ratelimit-opentelemetry} and its factory of one policy's trace. */
    static final String OPENTELEMETRY_CLASS = "dev.ratelimit.opentelemetry.DecisionSpans";
    static final String FACTORY = "forPolicy";

    private final OptionalModule module;

    private TracingBinding(OptionalModule module) {
        this.module = module;
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
        return new TracingBinding(OptionalModule.find("tracing", "io.opentelemetry.api.trace.Span", OPENTELEMETRY_CLASS,
                FACTORY, loader, e -> label + " is 'opentelemetry', but the OpenTelemetry API or the module is not on the "
                        + "class path (" + e + "); add dev.ratelimit:ratelimit-opentelemetry (it brings "
                        + "io.opentelemetry:opentelemetry-api) to the webapp, or set tracing=none"));
    }

    /** {@code none} or {@code opentelemetry}, in any case, as the {@code tracing} setting takes it. */
    public static String kind(String text) {
        return OptionalModule.kind(text, "opentelemetry", "tracing");
    }

    /** The trace of one policy's decisions (its limiters, tiers included, share it). */
    public DecisionTrace forPolicy(String policyName) {
        return (DecisionTrace) module.make(policyName);
    }

    @Override
    public String toString() {
        return "opentelemetry";
    }
}
