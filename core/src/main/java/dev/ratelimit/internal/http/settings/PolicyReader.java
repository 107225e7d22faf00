package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.http.webapp.Webapp;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Immutable;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads one {@link HttpPolicy} from configuration text: the policy's own values (init-params,
 * annotation attributes), then layers of webapp-wide defaults (JAX-RS properties, context-params),
 * then each {@link Setting}'s default. Rejects unknown names, resolves {@link Placeholders}, and
 * names in every error where the bad value came from: {@code init-param 'window' must be ...},
 * {@code context-param 'ratelimit.window' must be ...}.
 */
public final class PolicyReader {
    private final Function<String, String> labels;
    /** Layers of defaults, most important first, each with the format that names its settings. */
    private final List<Map<String, String>> layers = new ArrayList<>();
    private final List<String> layerLabelFormats = new ArrayList<>();
    private String defaultPolicyName;
    private String defaultPolicyNameOrigin;
    private ClassLoader classLoader;
    private Placeholders placeholders = new Placeholders(System::getenv, System::getProperty);
    private Map<String, String> values = Collections.emptyMap();
    /** The webapp's resources ({@code ServletContext.getResourceAsStream}), or null outside a webapp. */
    private Function<String, InputStream> resources;

    PolicyReader(Function<String, String> labels) {
        this.labels = labels;
    }

    /**
     * Webapp-wide defaults (e.g. context-params {@code ratelimit.<name>}, without the prefix: {@link Settings#collect})
     * for what the policy does not set; the earlier layer wins. Errors name one as {@code labelFormat} says, e.g.
     * {@code context-param 'ratelimit.%s'}.
     */
    public PolicyReader defaults(Map<String, String> defaults, String labelFormat) {
        layers.add(Immutable.copyOf(defaults));
        layerLabelFormats.add(labelFormat);
        return this;
    }

    /** The policy name when {@code policyName} is not set; {@code origin} names it, e.g. {@code the filter-name}. */
    public PolicyReader defaultPolicyName(String name, String origin) {
        this.defaultPolicyName = name;
        this.defaultPolicyNameOrigin = origin;
        return this;
    }

    /** Where {@code keyResolverClass} is loaded from; the thread's context class loader unless set. */
    public PolicyReader classLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
        return this;
    }

    /** Where {@code denialBody} is read from ({@link Webapp#resources()}); without it, denialBody is refused. */
    public PolicyReader resources(Function<String, InputStream> resources) {
        this.resources = resources;
        return this;
    }

    /** Where {@code ${env:NAME}} and {@code ${sys:name}} are looked up; for tests. */
    public PolicyReader lookups(Function<String, String> environment, Function<String, String> systemProperties) {
        this.placeholders = new Placeholders(environment, systemProperties);
        return this;
    }

    /**
     * @param own the policy's own values (init-params), which win over the defaults
     * @throws IllegalArgumentException for an unknown name, a missing required setting or a bad value, naming
     *     where it came from and showing the value
     */
    public HttpPolicy parse(Map<String, String> own) {
        checkKnown(own.keySet(), labels);
        for (int i = 0; i < layers.size(); i++) {
            String format = layerLabelFormats.get(i);
            checkKnown(layers.get(i).keySet(), name -> String.format(format, name));
        }
        this.values = Immutable.copyOf(own);
        try {
            return new HttpPolicy(this);
        } catch (BadArgument e) {
            Setting<?> setting = Settings.named(e.argument());
            if (setting == null) {
                throw e;
            }
            throw new IllegalArgumentException(e.messageAbout(label(setting)), e);
        }
    }

    private static void checkKnown(Iterable<String> names, Function<String, String> label) {
        for (String name : names) {
            if (Settings.named(name) == null) {
                throw new IllegalArgumentException("unknown " + label.apply(name) + " (a typo?); the known names are "
                        + Settings.names());
            }
        }
    }

    /** The setting's value, or its default when it is not set (or set blank). */
    <T> T get(Setting<T> setting) {
        String text = text(setting);
        return text == null ? setting.defaultValue() : setting.parse(text);
    }

    /** The setting's value; an error naming where to set it when it is not set. */
    <T> T required(Setting<T> setting) {
        String text = text(setting);
        if (text == null) {
            throw new IllegalArgumentException(label(setting) + " is required: " + setting.expected());
        }
        return setting.parse(text);
    }

    /** The value as given (placeholders resolved, trimmed), or null when not set or blank. */
    String text(Setting<?> setting) {
        String raw = raw(setting.name());
        if (raw == null) {
            return null;
        }
        String resolved = placeholders.resolve(setting.name(), raw).trim();
        return resolved.isEmpty() ? null : resolved;
    }

    /** Whether the policy itself (not a default layer) sets the setting. */
    boolean ownValue(Setting<?> setting) {
        return values.containsKey(setting.name());
    }

    /** The policy name: {@code policyName}, else the adapter's default. */
    String policyName() {
        String name = text(Settings.POLICY_NAME);
        return name != null ? name : defaultPolicyName;
    }

    ClassLoader classLoader() {
        return classLoader != null ? classLoader : Thread.currentThread().getContextClassLoader();
    }

    Function<String, InputStream> resources() {
        return resources;
    }

    /** How messages name the setting: where its value came from, or where it would be written. */
    String label(Setting<?> setting) {
        String name = setting.name();
        if (values.containsKey(name)) {
            return labels.apply(name);
        }
        for (int i = 0; i < layers.size(); i++) {
            if (layers.get(i).containsKey(name)) {
                return String.format(layerLabelFormats.get(i), name);
            }
        }
        if (setting == Settings.POLICY_NAME && defaultPolicyNameOrigin != null) {
            return "policyName (by default " + defaultPolicyNameOrigin + ")";
        }
        return labels.apply(name);
    }

    private String raw(String name) {
        if (values.containsKey(name)) {
            return values.get(name);
        }
        for (Map<String, String> layer : layers) {
            if (layer.containsKey(name)) {
                return layer.get(name);
            }
        }
        return null;
    }
}
