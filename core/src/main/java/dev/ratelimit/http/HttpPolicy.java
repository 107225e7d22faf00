package dev.ratelimit.http;

import dev.ratelimit.AdaptiveLimit;
import dev.ratelimit.Algorithm;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.Durations;
import dev.ratelimit.internal.RedisKeys;
import dev.ratelimit.internal.TransactionEvaluator;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One rate-limit policy for HTTP requests, read from configuration words (web.xml init-params,
 * JAX-RS properties, annotation values) and validated in one place, so the servlet filter and
 * JAX-RS accept the same words with the same messages. Immutable.
 *
 * <p>Every error names where the bad value came from and shows it, e.g.
 * {@code init-param 'window' must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M, but was '-1s'}.
 */
public final class HttpPolicy {
    /** Every configuration word, in the order they are documented. */
    public static final List<String> NAMES = List.of(
            "redisUri", "redisSentinelMaster", "redisSentinelNodes", "redisClusterNodes", "redisTimeout",
            "redisPoolSize", "algorithm", "limit", "window", "burst", "cost", "key", "keyResolverClass",
            "trustedProxies", "policyName", "keyPrefix", "methods", "excludePaths", "enforce", "onRedisFailure",
            "statusCode", "headers", "transport", "localDenyCache", "jmx", "adaptive", "adaptiveLatency");
    /** {@code redisUri} unless set. */
    public static final String DEFAULT_REDIS_URI = "redis://localhost:6379";
    /** The client key of requests that have no value for their key (a shared bucket). */
    public static final String MISSING_KEY = "#missing";

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");
    private static final Pattern PERCENT = Pattern.compile("(\\d{1,3})\\s*%");

    private final String policyName;
    private final String keyPrefix;
    private final Rule rule;
    private final Transport transport;
    private final FailurePolicy failurePolicy;
    private final boolean localDenyCache;
    private final boolean jmx;
    private final AdaptiveLimit adaptive;
    private final RedisSettings redis;
    private final KeyResolver keyResolver;
    private final String keyDescription;
    private final TrustedProxies trustedProxies;
    private final Set<String> methods;
    private final Set<String> excludedPaths;
    private final List<String> excludedPrefixes;
    private final boolean enforce;
    private final int statusCode;
    private final HeaderMode headerMode;
    /** What every answer's headers repeat, worked out once: the quoted name and the window in seconds. */
    private final String quotedPolicyName;
    private final long windowSeconds;

    private HttpPolicy(Parsed parsed) {
        this.policyName = parsed.policyName;
        this.keyPrefix = parsed.keyPrefix;
        this.rule = parsed.rule;
        this.transport = parsed.transport;
        this.failurePolicy = parsed.failurePolicy;
        this.localDenyCache = parsed.localDenyCache;
        this.jmx = parsed.jmx;
        this.adaptive = parsed.adaptive;
        this.redis = parsed.redis;
        this.keyResolver = parsed.keyResolver;
        this.keyDescription = parsed.keyDescription;
        this.trustedProxies = parsed.trustedProxies;
        this.methods = parsed.methods;
        this.excludedPaths = parsed.excludedPaths;
        this.excludedPrefixes = parsed.excludedPrefixes;
        this.enforce = parsed.enforce;
        this.statusCode = parsed.statusCode;
        this.headerMode = parsed.headerMode;
        this.quotedPolicyName = HttpAnswer.quoted(policyName);
        this.windowSeconds = Math.max(1, (rule.window().toMillis() + 999) / 1000);
    }

    /**
     * Starts reading a policy whose own words are named by a format, e.g. {@code init-param '%s'}.
     */
    public static Parser parser(String labelFormat) {
        return new Parser(name -> String.format(labelFormat, name));
    }

    /**
     * Starts reading a policy whose own words are named by a function, for sources whose names
     * differ from the words (annotation attributes).
     */
    public static Parser parser(Function<String, String> labels) {
        return new Parser(labels);
    }

    /** Whether a request with this method and path (without the context path) is limited at all. */
    public boolean appliesTo(String method, String path) {
        if (!methods.isEmpty() && !methods.contains(method)) {
            return false;
        }
        if (excludedPaths.contains(path)) {
            return false;
        }
        for (String prefix : excludedPrefixes) {
            if (path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
                return false;
            }
        }
        return true;
    }

    /** The request's client key; {@link #MISSING_KEY} when it has none. */
    public String clientKey(RequestView request) {
        String key = keyResolver.resolve(request);
        return key == null || key.isEmpty() ? MISSING_KEY : key;
    }

    /** A limiter for this policy over the given Redis. */
    public RateLimiter newLimiter(RedisStore store) {
        return RateLimiter.builder(store).policyName(policyName).keyPrefix(keyPrefix).rule(rule).transport(transport)
                .onRedisFailure(failurePolicy).localDenyCache(localDenyCache).adaptive(adaptive).build();
    }

    public String policyName() {
        return policyName;
    }

    public Rule rule() {
        return rule;
    }

    /** Where Redis is; policies with equal settings share one client. */
    public RedisSettings redisSettings() {
        return redis;
    }

    /** False for a dry run: count and send headers, never refuse. */
    public boolean enforce() {
        return enforce;
    }

    public int statusCode() {
        return statusCode;
    }

    public HeaderMode headerMode() {
        return headerMode;
    }

    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    public boolean localDenyCache() {
        return localDenyCache;
    }

    /** Whether limits adapt to load: then the adapters report how long admitted requests took. */
    public boolean adaptive() {
        return adaptive != null;
    }

    /** Whether the policy's counters are published as a JMX bean (default true). */
    public boolean jmx() {
        return jmx;
    }

    /** The window in whole seconds, rounded up, at least 1: the {@code w} of {@code RateLimit-Policy}. */
    public long windowSeconds() {
        return windowSeconds;
    }

    /** The policy name as the draft's structured fields carry it: quoted, with escapes. */
    String quotedPolicyName() {
        return quotedPolicyName;
    }

    /** The window as configured, e.g. {@code 1m}. */
    public String windowText() {
        return Durations.format(rule.window());
    }

    /** The effective configuration, one line, without secrets: for the startup log. */
    @Override
    public String toString() {
        return "policy '" + policyName + "': " + rule.algorithm() + " " + rule.limit() + " per " + windowText()
                + (rule.algorithm().usesBurst() ? ", burst " + rule.burst() : "") + ", cost " + rule.cost()
                + ", key " + keyDescription + ", trustedProxies " + trustedProxies
                + ", methods " + (methods.isEmpty() ? "all" : String.join(",", methods))
                + ", excludePaths " + excludedPathsText() + ", enforce " + enforce + ", statusCode " + statusCode
                + ", headers " + headerMode + ", transport " + transport + ", onRedisFailure " + failurePolicy
                + ", localDenyCache " + localDenyCache + ", jmx " + jmx
                + (adaptive == null ? "" : ", " + adaptive) + ", keyPrefix '" + keyPrefix + "', redis " + redis;
    }

    private String excludedPathsText() {
        List<String> all = new ArrayList<>(excludedPaths);
        excludedPrefixes.forEach(prefix -> all.add(prefix + "/*"));
        return all.isEmpty() ? "none" : String.join(",", all);
    }

    /** Reads configuration words into a policy; set the sources, then {@link #parse(Map)}. */
    public static final class Parser {
        private final Function<String, String> labels;
        /** Layers of defaults, most important first, each with the format that names its words. */
        private final List<Map<String, String>> defaults = new ArrayList<>();
        private final List<String> defaultsLabelFormats = new ArrayList<>();
        private String defaultPolicyName;
        private String defaultPolicyNameOrigin;
        private ClassLoader classLoader;
        private Function<String, String> environment = System::getenv;
        private Function<String, String> systemProperties = System::getProperty;

        private Parser(Function<String, String> labels) {
            this.labels = labels;
        }

        /**
         * Application-wide defaults (e.g. context-params {@code ratelimit.<name>}, given here without
         * the prefix), used for the words the policy itself does not set. Called more than once, the
         * earlier layer wins.
         *
         * @param labelFormat how errors name a default, e.g. {@code context-param 'ratelimit.%s'}
         */
        public Parser defaults(Map<String, String> defaults, String labelFormat) {
            this.defaults.add(Map.copyOf(defaults));
            this.defaultsLabelFormats.add(labelFormat);
            return this;
        }

        /**
         * The policy name when {@code policyName} is not set.
         *
         * @param origin what it is, for messages, e.g. {@code the filter-name}
         */
        public Parser defaultPolicyName(String name, String origin) {
            this.defaultPolicyName = name;
            this.defaultPolicyNameOrigin = origin;
            return this;
        }

        /** Where {@code keyResolverClass} is loaded from; the thread's context class loader unless set. */
        public Parser classLoader(ClassLoader classLoader) {
            this.classLoader = classLoader;
            return this;
        }

        /** Where {@code ${env:NAME}} and {@code ${sys:name}} are looked up; for tests. */
        public Parser lookups(Function<String, String> environment, Function<String, String> systemProperties) {
            this.environment = environment;
            this.systemProperties = systemProperties;
            return this;
        }

        /**
         * @param values the policy's own words (init-params), which win over the defaults
         * @throws IllegalArgumentException for an unknown word, a missing required one or a bad
         *     value, naming where it came from and showing the value
         */
        public HttpPolicy parse(Map<String, String> values) {
            for (String name : values.keySet()) {
                if (!NAMES.contains(name)) {
                    throw unknown(labels.apply(name));
                }
            }
            for (int i = 0; i < defaults.size(); i++) {
                for (String name : defaults.get(i).keySet()) {
                    if (!NAMES.contains(name)) {
                        throw unknown(String.format(defaultsLabelFormats.get(i), name));
                    }
                }
            }
            try {
                return new HttpPolicy(new Parsed(this, values));
            } catch (IllegalArgumentException e) {
                throw relabel(e, values);
            }
        }

        private static IllegalArgumentException unknown(String label) {
            return new Labelled("unknown " + label + " (a typo?); the known names are " + String.join(", ", NAMES));
        }

        /** The word's raw value: the policy's own, else the first default layer that has it. */
        String raw(String name, Map<String, String> values) {
            if (values.containsKey(name)) {
                return values.get(name);
            }
            for (Map<String, String> layer : defaults) {
                if (layer.containsKey(name)) {
                    return layer.get(name);
                }
            }
            return null;
        }

        String label(String name, Map<String, String> values) {
            if (values.containsKey(name)) {
                return labels.apply(name);
            }
            for (int i = 0; i < defaults.size(); i++) {
                if (defaults.get(i).containsKey(name)) {
                    return String.format(defaultsLabelFormats.get(i), name);
                }
            }
            if ("policyName".equals(name) && defaultPolicyNameOrigin != null) {
                return "policyName (by default " + defaultPolicyNameOrigin + ")";
            }
            // Not given at all: where the user would have to write it.
            return labels.apply(name);
        }

        /**
         * The core's own checks say {@code window must be ...}; the user wrote an init-param or a
         * property, so say that: {@code init-param 'window' must be ...}.
         */
        private IllegalArgumentException relabel(IllegalArgumentException e, Map<String, String> values) {
            String message = e.getMessage();
            if (e instanceof Labelled || message == null) {
                return e;
            }
            int space = message.indexOf(' ');
            String first = space < 0 ? message : message.substring(0, space);
            if (!NAMES.contains(first)) {
                return e;
            }
            String label = label(first, values);
            String text = message.startsWith(first + " must") ? label + message.substring(first.length())
                    : label + ": " + message;
            return new IllegalArgumentException(text, e);
        }
    }

    /** An error whose message already names its source, so {@link Parser#relabel} leaves it alone. */
    private static final class Labelled extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Labelled(String message) {
            super(message);
        }
    }

    /** The parsing itself, one word at a time. */
    private static final class Parsed {
        private final Parser parser;
        private final Map<String, String> values;

        String policyName;
        String keyPrefix;
        Rule rule;
        Transport transport;
        FailurePolicy failurePolicy;
        boolean localDenyCache;
        boolean jmx;
        AdaptiveLimit adaptive;
        RedisSettings redis;
        KeyResolver keyResolver;
        String keyDescription;
        TrustedProxies trustedProxies;
        Set<String> methods;
        Set<String> excludedPaths;
        List<String> excludedPrefixes;
        boolean enforce;
        int statusCode;
        HeaderMode headerMode;

        Parsed(Parser parser, Map<String, String> values) {
            this.parser = parser;
            this.values = values;
            parseRedis();
            parseRule();
            parseKey();
            parseFilters();
            transport = Transport.fromConfigName(text("transport", "lua"));
            failurePolicy = FailurePolicy.fromConfigName(text("onRedisFailure", "allow"));
            headerMode = HeaderMode.fromConfigName(text("headers", "draft"));
            localDenyCache = bool("localDenyCache", true);
            jmx = bool("jmx", true);
            parseAdaptive();
            enforce = bool("enforce", true);
            statusCode = (int) number("statusCode", 429L, 400, 599, "an HTTP error status between 400 and 599, such as 429");
            policyName = text("policyName", parser.defaultPolicyName);
            keyPrefix = text("keyPrefix", RateLimiter.DEFAULT_KEY_PREFIX);
            // The limiter's own checks, run now rather than when the first request comes.
            RedisKeys.checkKeyPart("policyName", policyName, 1, RateLimiter.MAX_NAME_LENGTH);
            RedisKeys.checkKeyPart("keyPrefix", keyPrefix, 0, RateLimiter.MAX_NAME_LENGTH);
            if (transport == Transport.TRANSACTION) {
                TransactionEvaluator.checkSupported(List.of(rule));
            }
            if (adaptive != null) {
                AdaptiveLimit.checkApplies(List.of(rule));
            }
        }

        private void parseRedis() {
            RedisSettings.Builder builder = RedisSettings.builder(text("redisUri", DEFAULT_REDIS_URI))
                    .timeout(duration("redisTimeout", RedisSettings.DEFAULT_TIMEOUT))
                    .poolSize((int) number("redisPoolSize", (long) RedisSettings.DEFAULT_POOL_SIZE, 1, 10_000,
                            "a whole number between 1 and 10000"));
            String sentinelMaster = text("redisSentinelMaster", null);
            String sentinelNodes = text("redisSentinelNodes", null);
            if (sentinelMaster != null || sentinelNodes != null) {
                builder.sentinel(sentinelMaster, list(sentinelNodes));
            }
            String clusterNodes = text("redisClusterNodes", null);
            if (clusterNodes != null) {
                builder.cluster(list(clusterNodes));
            }
            redis = builder.build();
        }

        private void parseRule() {
            Algorithm algorithm = Algorithm.fromConfigName(text("algorithm", Algorithm.SLIDING_LOG.configName()));
            long limit = number("limit", null, 1, Long.MAX_VALUE, "a whole number of at least 1, such as 100");
            Duration window = duration("window", null);
            Rule.Builder builder = Rule.builder(algorithm, limit, window)
                    .cost(number("cost", 1L, Long.MIN_VALUE, Long.MAX_VALUE, "a whole number of at least 1"));
            if (text("burst", null) != null) {
                builder.burst(number("burst", null, Long.MIN_VALUE, Long.MAX_VALUE, "a whole number of at least 1"));
            }
            rule = builder.build();
        }

        private void parseKey() {
            trustedProxies = TrustedProxies.parse(text("trustedProxies", null));
            String resolverClass = text("keyResolverClass", null);
            if (resolverClass == null) {
                keyResolver = KeySpec.parse(text("key", "ip"), trustedProxies);
                keyDescription = keyResolver.toString();
                return;
            }
            if (values.containsKey("key")) {
                throw labelled(parser.label("key", values) + " and " + parser.label("keyResolverClass", values)
                        + " exclude each other, but both were set: '" + values.get("key") + "' and '" + resolverClass
                        + "'; keep one");
            }
            keyResolver = instantiate(resolverClass);
            keyDescription = "keyResolverClass " + resolverClass;
        }

        private KeyResolver instantiate(String className) {
            ClassLoader loader = parser.classLoader != null ? parser.classLoader
                    : Thread.currentThread().getContextClassLoader();
            String why;
            try {
                Class<?> type = Class.forName(className, true, loader != null ? loader : HttpPolicy.class.getClassLoader());
                if (KeyResolver.class.isAssignableFrom(type)) {
                    return (KeyResolver) type.getConstructor().newInstance();
                }
                why = "it does not implement " + KeyResolver.class.getName();
            } catch (ClassNotFoundException e) {
                why = "no such class is visible to the webapp";
            } catch (NoSuchMethodException e) {
                why = "it has no public no-argument constructor";
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                why = "creating it failed: " + e;
            }
            throw labelled(parser.label("keyResolverClass", values) + " must name a public class implementing "
                    + KeyResolver.class.getName() + " with a public no-argument constructor, but was '" + className
                    + "' (" + why + ")");
        }

        /** {@code adaptive} = {@code off} or the floor as a percentage; {@code adaptiveLatency} = a target. */
        private void parseAdaptive() {
            String floor = text("adaptive", "off");
            String latency = text("adaptiveLatency", null);
            if (floor.equalsIgnoreCase("off") || floor.equalsIgnoreCase("false")) {
                if (latency != null) {
                    throw labelled(parser.label("adaptiveLatency", values) + " needs adaptive limits on, but "
                            + parser.label("adaptive", values) + " is '" + floor + "'");
                }
                return;
            }
            Matcher percent = PERCENT.matcher(floor);
            int value = percent.matches() ? Integer.parseInt(percent.group(1)) : -1;
            if (value < 1 || value > 100) {
                throw labelled(parser.label("adaptive", values) + " must be off or the lowest limit as a percentage "
                        + "of the configured one, such as 25%, but was '" + floor + "'");
            }
            adaptive = AdaptiveLimit.floor(value / 100.0);
            if (latency != null) {
                adaptive = adaptive.latencyTarget(duration("adaptiveLatency", null));
            }
        }

        private void parseFilters() {
            methods = new LinkedHashSet<>();
            for (String method : list(text("methods", null))) {
                if (!METHOD.matcher(method).matches()) {
                    throw labelled(parser.label("methods", values) + " must list HTTP methods such as GET,POST, but '"
                            + method + "' in '" + text("methods", null) + "' is not one");
                }
                methods.add(method.toUpperCase(Locale.ROOT));
            }
            methods = Collections.unmodifiableSet(methods);
            Set<String> exact = new LinkedHashSet<>();
            List<String> prefixes = new ArrayList<>();
            for (String path : list(text("excludePaths", null))) {
                boolean prefix = path.endsWith("/*");
                String stem = prefix ? path.substring(0, path.length() - 2) : path;
                if (!path.startsWith("/") || stem.contains("*")) {
                    throw labelled(parser.label("excludePaths", values) + " must list paths starting with '/', "
                            + "optionally ending in '/*', but '" + path + "' in '" + text("excludePaths", null)
                            + "' is not one");
                }
                if (prefix) {
                    prefixes.add(stem);
                } else {
                    exact.add(path);
                }
            }
            excludedPaths = Collections.unmodifiableSet(exact);
            excludedPrefixes = List.copyOf(prefixes);
        }

        /** The word's value with placeholders resolved and blanks trimmed; the fallback when unset or blank. */
        private String text(String name, String fallback) {
            String raw = parser.raw(name, values);
            if (raw == null) {
                return fallback;
            }
            String resolved = resolvePlaceholders(name, raw).trim();
            return resolved.isEmpty() ? fallback : resolved;
        }

        private String resolvePlaceholders(String name, String raw) {
            Matcher matcher = PLACEHOLDER.matcher(raw);
            StringBuilder out = new StringBuilder();
            while (matcher.find()) {
                String body = matcher.group(1);
                int colon = body.indexOf(':');
                String source = colon < 0 ? "" : body.substring(0, colon);
                String rest = colon < 0 ? "" : body.substring(colon + 1);
                int dash = rest.indexOf(":-");
                String key = dash < 0 ? rest : rest.substring(0, dash);
                String fallback = dash < 0 ? null : rest.substring(dash + 2);
                String value;
                if ("env".equals(source) && !key.isEmpty()) {
                    value = parser.environment.apply(key);
                } else if ("sys".equals(source) && !key.isEmpty()) {
                    value = parser.systemProperties.apply(key);
                } else {
                    throw labelled(parser.label(name, values) + " has the placeholder '" + matcher.group()
                            + "', but placeholders must be ${env:NAME}, ${env:NAME:-default} or ${sys:name}");
                }
                if (value == null) {
                    value = fallback;
                }
                if (value == null) {
                    throw labelled(parser.label(name, values) + " refers to " + matcher.group() + ", which is not "
                            + "set; set it or give a default: ${" + source + ":" + key + ":-value}");
                }
                matcher.appendReplacement(out, Matcher.quoteReplacement(value));
            }
            matcher.appendTail(out);
            return out.toString();
        }

        private long number(String name, Long fallback, long min, long max, String expected) {
            String value = text(name, null);
            if (value == null) {
                if (fallback == null) {
                    throw labelled(parser.label(name, values) + " is required: " + expected);
                }
                return fallback;
            }
            try {
                long number = Long.parseLong(value);
                if (number >= min && number <= max) {
                    return number;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw labelled(parser.label(name, values) + " must be " + expected + ", but was '" + value + "'");
        }

        private Duration duration(String name, Duration fallback) {
            String value = text(name, null);
            if (value == null) {
                if (fallback == null) {
                    throw labelled(parser.label(name, values) + " is required: a duration such as 500ms, 10s, 1m, "
                            + "1h, 1d or PT1M");
                }
                return fallback;
            }
            Matcher simple = SIMPLE_DURATION.matcher(value);
            if (simple.matches()) {
                long amount = Long.parseLong(simple.group(1));
                switch (simple.group(2).toLowerCase(Locale.ROOT)) {
                    case "ms": return Duration.ofMillis(amount);
                    case "s": return Duration.ofSeconds(amount);
                    case "m": return Duration.ofMinutes(amount);
                    case "h": return Duration.ofHours(amount);
                    default: return Duration.ofDays(amount);
                }
            }
            if (value.startsWith("P") || value.startsWith("p")) {
                try {
                    Duration parsed = Duration.parse(value);
                    if (!parsed.isNegative()) {
                        return parsed;
                    }
                } catch (DateTimeParseException e) {
                    // reported below
                }
            }
            throw labelled(parser.label(name, values) + " must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M, "
                    + "but was '" + value + "'");
        }

        private boolean bool(String name, boolean fallback) {
            String value = text(name, null);
            if (value == null) {
                return fallback;
            }
            if ("true".equalsIgnoreCase(value) || "false".equalsIgnoreCase(value)) {
                return Boolean.parseBoolean(value);
            }
            throw labelled(parser.label(name, values) + " must be true or false, but was '" + value + "'");
        }

        private static List<String> list(String text) {
            if (text == null) {
                return List.of();
            }
            List<String> items = new ArrayList<>(Arrays.asList(text.trim().split("[,\\s]+")));
            items.removeIf(String::isEmpty);
            return items;
        }

        private static IllegalArgumentException labelled(String message) {
            return new Labelled(message);
        }
    }
}
