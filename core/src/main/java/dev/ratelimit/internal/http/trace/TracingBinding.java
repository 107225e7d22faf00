package dev.ratelimit.internal.http.trace;

import dev.ratelimit.internal.support.OptionalModule;
import java.util.Locale;

/**
 * {@code tracing=opentelemetry}: the optional module's {@link DecisionTrace}, found by name so that
 * the core needs no OpenTelemetry. Checked when the policy is read, so a webapp without the jars
 * fails to start rather than run with traces that never say a word of the limiter.
 */
public final class TracingBinding {
    /** The class of {@code ratelimit-opentelemetry} and its factories of one policy's trace. */
    static final String OPENTELEMETRY_CLASS = "dev.ratelimit.opentelemetry.DecisionSpans";
    /** {@code tracingSpan=current}: the decision on the request's current span. */
    static final String FACTORY = "forPolicy";
    /** {@code tracingSpan=own}: the decision on a span of its own, a child of the current one. */
    static final String OWN_SPAN_FACTORY = "withOwnSpans";

    private final OptionalModule module;

    private TracingBinding(OptionalModule module) {
        this.module = module;
    }

    /** Null for {@code none}; missing classes throw, naming the setting as {@code label} says and the jars. */
    public static TracingBinding of(String kind, boolean ownSpan, String label, ClassLoader loader) {
        if (!"opentelemetry".equals(kind)) {
            return null;
        }
        return new TracingBinding(OptionalModule.find("tracing", "io.opentelemetry.api.trace.Span", OPENTELEMETRY_CLASS,
                ownSpan ? OWN_SPAN_FACTORY : FACTORY, loader, e -> label + " is 'opentelemetry', but the "
                        + "OpenTelemetry API or the module is not on the class path (" + e + "); add "
                        + "dev.ratelimit:ratelimit-opentelemetry (it brings io.opentelemetry:opentelemetry-api) to the "
                        + "webapp, or set tracing=none"));
    }

    /** {@code none} or {@code opentelemetry}, in any case, as the {@code tracing} setting takes it. */
    public static String kind(String text) {
        return OptionalModule.kind(text, "opentelemetry", "tracing");
    }

    /** {@code tracingSpan}, in any case: true for {@code own}, false for {@code current}. */
    public static Boolean ownSpan(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!lower.equals("current") && !lower.equals("own")) {
            throw new IllegalArgumentException("not a tracing span");
        }
        return lower.equals("own");
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
