package dev.ratelimit.http;

import dev.ratelimit.internal.Immutable;
import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.BadArgument;
import dev.ratelimit.internal.LocalLimiter;
import java.io.InputStream;
import java.time.ZoneId;
import java.util.Collections;
import java.util.ArrayList;
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
     * Webapp-wide defaults (e.g. context-params {@code ratelimit.<name>}, given here without the
     * prefix: see {@link Settings#collect}), used for the settings the policy itself does not
     * set. Called more than once, the earlier layer wins.
     *
     * @param labelFormat how errors name a default, e.g. {@code context-param 'ratelimit.%s'}
     */
    public PolicyReader defaults(Map<String, String> defaults, String labelFormat) {
        layers.add(Immutable.copyOf(defaults));
        layerLabelFormats.add(labelFormat);
        return this;
    }

    /**
     * The policy name when {@code policyName} is not set.
     *
     * @param origin what it is, for messages, e.g. {@code the filter-name}
     */
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

    /**
     * Where {@code denialBody} is read from, e.g. {@link Webapp#resources()}; without it (JAX-RS
     * outside a servlet container) {@code denialBody} is refused.
     *
     * @param resources a path's content, or null when there is none
     */
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
     * @throws IllegalArgumentException for an unknown name, a missing required setting or a bad
     *     value, naming where it came from and showing the value
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

    /** The Redis connection: {@code redisUri} with timeout and pool, through Sentinel or Cluster if set. */
    RedisSettings redisSettings() {
        RedisSettings.Builder builder = RedisSettings.builder(get(Settings.REDIS_URI))
                .timeout(get(Settings.REDIS_TIMEOUT))
                .poolSize(Math.toIntExact(get(Settings.REDIS_POOL_SIZE)))
                .circuitBreaker(Math.toIntExact(get(Settings.REDIS_BREAKER_FAILURES)),
                        get(Settings.REDIS_BREAKER_COOL_DOWN))
                .coalescing(get(Settings.REDIS_COALESCING));
        String sentinelMaster = get(Settings.REDIS_SENTINEL_MASTER);
        List<String> sentinelNodes = get(Settings.REDIS_SENTINEL_NODES);
        if (sentinelMaster != null || sentinelNodes != null) {
            builder.sentinel(sentinelMaster, sentinelNodes == null ? Immutable.listOf() : sentinelNodes);
        }
        List<String> clusterNodes = get(Settings.REDIS_CLUSTER_NODES);
        if (clusterNodes != null) {
            builder.cluster(clusterNodes);
        }
        return builder.build();
    }

    /**
     * The rule: {@code algorithm}, {@code limit} per {@code window}, {@code burst}, {@code cost}; or
     * {@code limit} per {@code calendar} period in {@code timeZone}, which excludes {@code window} and
     * counts as fixed-window.
     */
    Rule rule() {
        ZoneId timeZone = get(Settings.TIME_ZONE);
        if (text(Settings.CALENDAR) == null && ownValue(Settings.TIME_ZONE)) {
            throw new IllegalArgumentException(label(Settings.TIME_ZONE) + " applies only with calendar, but "
                    + label(Settings.CALENDAR) + " is not set (timeZone was '" + text(Settings.TIME_ZONE) + "')");
        }
        Rule.Builder builder = text(Settings.CALENDAR) != null ? calendarRule(timeZone)
                : Rule.builder(get(Settings.ALGORITHM), required(Settings.LIMIT), required(Settings.WINDOW));
        builder.cost(get(Settings.COST));
        Long burst = get(Settings.BURST);
        if (burst != null) {
            builder.burst(burst);
        }
        return builder.build();
    }

    private Rule.Builder calendarRule(ZoneId timeZone) {
        CalendarPeriod period = get(Settings.CALENDAR);
        if (text(Settings.WINDOW) != null) {
            throw new IllegalArgumentException(label(Settings.WINDOW) + " and " + label(Settings.CALENDAR)
                    + " exclude each other, but both were set: '" + text(Settings.WINDOW) + "' and '" + period
                    + "'; keep one");
        }
        Algorithm algorithm = get(Settings.ALGORITHM);
        if (text(Settings.ALGORITHM) != null && algorithm != Algorithm.FIXED_WINDOW) {
            throw new IllegalArgumentException(label(Settings.CALENDAR) + " counts as fixed-window, but "
                    + label(Settings.ALGORITHM) + " is '" + algorithm + "'; leave algorithm out");
        }
        return Rule.calendar(required(Settings.LIMIT), period, timeZone);
    }

    /**
     * {@code limits}: several dimensions, or null when not set. It replaces {@code limit},
     * {@code window} and {@code key}, which must then not be set, and takes {@code algorithm},
     * {@code burst} and {@code cost} for every entry.
     */
    Dimensions dimensions(TrustedProxies proxies) {
        String limits = text(Settings.LIMITS);
        if (limits == null) {
            return null;
        }
        for (Setting<?> excluded : Immutable.listOf(Settings.LIMIT, Settings.WINDOW, Settings.CALENDAR, Settings.KEY,
                Settings.KEY_RESOLVER_CLASS, Settings.TIERS, Settings.TIER_FROM, Settings.COUNT_STATUS)) {
            if (ownValue(excluded)) {
                throw new IllegalArgumentException(label(Settings.LIMITS) + " and " + label(excluded)
                        + " exclude each other, but both were set: '" + limits + "' and '" + text(excluded)
                        + "'; keep " + Settings.LIMITS.name());
            }
        }
        if (get(Settings.ON_REDIS_FAILURE) == FailurePolicy.LOCAL) {
            throw new IllegalArgumentException(label(Settings.ON_REDIS_FAILURE) + " is 'local', which limits one "
                    + "client per request, but " + label(Settings.LIMITS) + " decides one per dimension; use allow "
                    + "or deny");
        }
        return Dimensions.parse(limits, get(Settings.ALGORITHM), get(Settings.BURST), get(Settings.COST), proxies);
    }

    /**
     * {@code countStatus}, or null when every answer counts. Refused with {@code concurrency}: its
     * lease is given back when any request ends, whatever its status.
     */
    StatusMatcher countStatus(Rule rule) {
        StatusMatcher countStatus = get(Settings.COUNT_STATUS);
        if (countStatus != null && rule.algorithm().holdsLeases()) {
            throw new IllegalArgumentException(label(Settings.COUNT_STATUS) + " counts finished requests, but "
                    + label(Settings.ALGORITHM) + " is 'concurrency', which counts requests in flight (countStatus "
                    + "was '" + text(Settings.COUNT_STATUS) + "')");
        }
        return countStatus;
    }

    /** {@code tiers} with {@code tierFrom}: each needs the other. */
    Tiers tiers() {
        String tiers = text(Settings.TIERS);
        String from = text(Settings.TIER_FROM);
        if (tiers == null && from == null) {
            return Tiers.NONE;
        }
        if (tiers == null || from == null) {
            Setting<?> given = tiers == null ? Settings.TIER_FROM : Settings.TIERS;
            Setting<?> missing = tiers == null ? Settings.TIERS : Settings.TIER_FROM;
            throw new IllegalArgumentException(label(given) + " needs " + label(missing) + ", which is not set ("
                    + given.name() + " was '" + text(given) + "')");
        }
        return Tiers.parse(tiers, from);
    }

    /** {@code adaptive} and {@code adaptiveLatency}: null when limits do not adapt. */
    AdaptiveLimit adaptive() {
        int floorPercent = get(Settings.ADAPTIVE);
        Setting<?> latency = Settings.ADAPTIVE_LATENCY;
        if (floorPercent == 0) {
            if (text(latency) != null) {
                String adaptive = text(Settings.ADAPTIVE);
                throw new IllegalArgumentException(label(latency) + " needs adaptive limits on, but "
                        + label(Settings.ADAPTIVE) + " is '" + (adaptive == null ? "off" : adaptive) + "'");
            }
            return null;
        }
        AdaptiveLimit adaptive = AdaptiveLimit.floor(floorPercent / 100.0);
        return text(latency) == null ? adaptive : adaptive.latencyTarget(get(Settings.ADAPTIVE_LATENCY));
    }

    /**
     * {@code localLimit}, checked against the rule: the rule's limit unless set, null unless
     * {@code onRedisFailure=local}, and refused without it (a value that would be ignored is a typo).
     */
    Long localLimit(FailurePolicy failurePolicy, Rule rule) {
        Setting<Long> setting = Settings.LOCAL_LIMIT;
        Long localLimit = get(setting);
        if (failurePolicy != FailurePolicy.LOCAL) {
            if (localLimit != null) {
                throw new IllegalArgumentException(label(setting) + " applies only with onRedisFailure=local, but "
                        + label(Settings.ON_REDIS_FAILURE) + " is '" + failurePolicy + "' (localLimit was '"
                        + text(setting) + "')");
            }
            return null;
        }
        long value = localLimit != null ? localLimit : rule.limit();
        LocalLimiter.localRules(Immutable.listOf(rule), value);
        return value;
    }

    /** Where {@code denialBody} is read from; null outside a webapp. */
    Function<String, InputStream> resources() {
        return resources;
    }

    /** The client key: {@code keyResolverClass} if set, else {@code key} over {@code trustedProxies}. */
    KeyResolver keyResolver(TrustedProxies proxies) {
        String resolverClass = get(Settings.KEY_RESOLVER_CLASS);
        if (resolverClass == null) {
            return KeySpec.parse(get(Settings.KEY), proxies);
        }
        if (ownValue(Settings.KEY)) {
            throw new IllegalArgumentException(label(Settings.KEY) + " and " + label(Settings.KEY_RESOLVER_CLASS)
                    + " exclude each other, but both were set: '" + values.get(Settings.KEY.name()) + "' and '"
                    + resolverClass + "'; keep one");
        }
        return CustomKeyResolver.load(resolverClass, classLoader());
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
