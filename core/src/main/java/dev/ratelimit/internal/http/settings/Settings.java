package dev.ratelimit.internal.http.settings;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.http.client.AddressBlocks;
import dev.ratelimit.internal.http.client.ProxyHeader;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.http.trace.TracingBinding;
import dev.ratelimit.internal.rules.DelayRules;
import dev.ratelimit.internal.support.Arguments;
import dev.ratelimit.internal.support.Immutable;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every setting of an HTTP policy, declared once, in the order README documents them. The servlet
 * filter's init-params, the {@code ratelimit.<name>} context-params and JAX-RS properties, and
 * {@code @RateLimited}'s attributes are all these names.
 */
public final class Settings {
    private static final List<Setting<?>> DECLARED = new ArrayList<>();
    /** Every setting, in the documented order: each adds itself as it is declared below. */
    public static final List<Setting<?>> ALL = Collections.unmodifiableList(DECLARED);

    private static final String DURATION = "a duration such as 500ms, 10s, 1m, 1h, 1d or PT1M";

    public static final Setting<String> REDIS_URI = declare(Setting.of("redisUri", "redis://localhost:6379",
            "redis://localhost:6379", "a redis:// or rediss:// URI", Function.identity(),
            "standalone Redis; rediss:// for TLS; redis://user:password@host:port/db").secret());
    public static final Setting<String> REDIS_SENTINEL_MASTER = setting("redisSentinelMaster", "", null,
            "the master's name", Function.identity(), "Sentinel: the master's name");
    public static final Setting<List<String>> REDIS_SENTINEL_NODES = setting("redisSentinelNodes", "", null,
            "host:port pairs separated by commas", SettingText::list, "Sentinel: the Sentinels, host:port,...");
    public static final Setting<List<String>> REDIS_CLUSTER_NODES = setting("redisClusterNodes", "", null,
            "host:port pairs separated by commas", SettingText::list, "Cluster seed nodes, host:port,...");
    public static final Setting<Duration> REDIS_TIMEOUT = setting("redisTimeout", "200ms",
            RedisSettings.DEFAULT_TIMEOUT, DURATION, SettingText::duration,
            "connect and socket timeout; also the longest wait for a pooled connection");
    public static final Setting<Long> REDIS_POOL_SIZE = wholeNumber("redisPoolSize", "32",
            (long) RedisSettings.DEFAULT_POOL_SIZE, 1, 10_000, "a whole number between 1 and 10000",
            "most connections");
    public static final Setting<Long> REDIS_BREAKER_FAILURES = wholeNumber("redisBreakerFailures", "3",
            (long) RedisSettings.DEFAULT_BREAKER_FAILURES, 1, 1000, "a whole number between 1 and 1000",
            "consecutive failures to reach a Redis node that open its circuit breaker");
    public static final Setting<Duration> REDIS_BREAKER_COOL_DOWN = setting("redisBreakerCoolDown", "500ms",
            RedisSettings.DEFAULT_BREAKER_COOL_DOWN, "a duration from 1ms to 10m", SettingText.durationWhere(false, d -> d.compareTo(Duration.ofMillis(1))
            >= 0 && d.compareTo(Duration.ofMinutes(10)) <= 0), "how long an open breaker sends nothing to its node before one probe");
    public static final Setting<Boolean> REDIS_COALESCING = bool("redisCoalescing", RedisSettings.DEFAULT_COALESCING,
            "decisions waiting for one Redis node at the same moment share one round trip and one script call");
    public static final Setting<Algorithm> ALGORITHM = setting("algorithm", "sliding-log",
            Algorithm.SLIDING_LOG, "an algorithm", Algorithm::fromConfigName, "how requests are counted");
    public static final Setting<String> LIMITS = setting("limits", "", null,
            "entries such as '100 per 1m by user' separated by ';'", Function.identity(),
            "several dimensions decided together, instead of limit, window and key");
    public static final Setting<Long> LIMIT = wholeNumber("limit", "required", null, 1, Long.MAX_VALUE,
            "a whole number of at least 1, such as 100", "requests per window");
    public static final Setting<Duration> WINDOW = setting("window", "required", null, DURATION,
            SettingText::duration, "500ms, 10s, 1m, 1h, 1d, or ISO-8601 such as PT1M");
    public static final Setting<CalendarPeriod> CALENDAR = setting("calendar", "", null, "day, week or month",
            CalendarPeriod::fromConfigName, "day, week or month: a count per calendar period in timeZone, instead of "
            + "window");
    public static final Setting<ZoneId> TIME_ZONE = setting("timeZone", "UTC", ZoneId.of("UTC"),
            "a time zone such as UTC or Europe/Berlin", SettingText::timeZone,
            "with calendar: the time zone whose midnights start the periods");
    public static final Setting<Long> BURST = wholeNumber("burst", "limit", null, Long.MIN_VALUE, Long.MAX_VALUE,
            "a whole number of at least 1", "bucket capacity, for token-bucket, leaky-bucket and gcra");
    public static final Setting<Long> COST = wholeNumber("cost", "1", 1L, Long.MIN_VALUE, Long.MAX_VALUE,
            "a whole number of at least 1", "permits one request takes");
    public static final Setting<Duration> PENALTY = setting("penalty", "off", null, "off or whole milliseconds from "
            + "1ms to 1d such as 15m or 5s",
            SettingText.durationWhere(true, penalty -> Arguments.isWholeMillis(penalty, Arguments.MAX_PENALTY)),
            "a client over the limit is then refused for this long, on every node");
    public static final Setting<Duration> MAX_DELAY = setting("maxDelay", "off", null, "off or whole milliseconds "
            + "from 1ms to 60s such as 2s", SettingText.durationWhere(true, delay -> Arguments.isWholeMillis(delay, DelayRules.MAX_DELAY)),
            "a request over the limit whose turn comes within this long waits for it (async) instead of a 429");
    public static final Setting<Long> MAX_DELAYED = wholeNumber("maxDelayed", "1000", 1000L, 1, 100_000,
            "a whole number from 1 to 100000", "with maxDelay: the most requests of this policy waiting on this node");
    public static final Setting<String> TIERS = setting("tiers", "", null,
            "name:limit pairs such as partner:1000, staff:5000", Function.identity(),
            "with tierFrom: the first matching tier, in this order, gives the request's limit");
    public static final Setting<String> TIER_FROM = setting("tierFrom", "", null,
            "role, attribute:NAME or header:NAME", Function.identity(),
            "with tiers: where a request's tier comes from");
    public static final Setting<String> KEY = setting("key", "ip", "ip", "a key such as ip or header:X-Api-Key",
            Function.identity(), "ip, user, session, header:NAME, param:NAME, cookie:NAME, global; join with +");
    public static final Setting<String> KEY_RESOLVER_CLASS = setting("keyResolverClass", "", null,
            "a class name", Function.identity(), "a class implementing KeyResolver; excludes key");
    public static final Setting<TrustedProxies> TRUSTED_PROXIES = setting("trustedProxies", "none",
            TrustedProxies.none(), "CIDR blocks separated by commas", TrustedProxies::parse,
            "CIDRs whose forwarding header (forwardedHeader) is believed");
    public static final Setting<ProxyHeader> FORWARDED_HEADER = setting("forwardedHeader", "X-Forwarded-For",
            ProxyHeader.X_FORWARDED_FOR, "X-Forwarded-For or Forwarded", ProxyHeader::fromConfigName,
            "the one header the trusted proxies write, X-Forwarded-For or Forwarded; the other is ignored");
    public static final Setting<Long> IPV6_PREFIX = wholeNumber("ipv6Prefix", "64",
            (long) TrustedProxies.DEFAULT_IPV6_PREFIX, 1, 128, "a whole number between 1 and 128",
            "IPv6 clients are keyed by their network of this prefix length, e.g. 2001:db8:1:2::/64");
    public static final Setting<String> POLICY_NAME = setting("policyName", "the filter-name", null,
            "a name", Function.identity(), "name in headers and in Redis keys");
    public static final Setting<String> KEY_PREFIX = setting("keyPrefix", RateLimiter.DEFAULT_KEY_PREFIX,
            RateLimiter.DEFAULT_KEY_PREFIX, "a key prefix", Function.identity(), "Redis key prefix");
    public static final Setting<List<String>> METHODS = setting("methods", "all", Immutable.listOf(),
            "HTTP methods such as GET,POST", RequestMatcher::methods, "HTTP methods that are limited, e.g. POST,PUT");
    public static final Setting<List<String>> EXCLUDE_PATHS = setting("excludePaths", "none", Immutable.listOf(),
            "paths starting with '/'", RequestMatcher::paths, "paths within the webapp that are not limited");
    public static final Setting<AddressBlocks> EXEMPT_ADDRESSES = setting("exemptAddresses", "none",
            AddressBlocks.NONE, "CIDR blocks separated by commas",
            text -> AddressBlocks.parse("exemptAddresses", text),
            "client addresses (resolved as for the ip key) that are never limited and get no headers");
    public static final Setting<List<String>> EXEMPT_ROLES = setting("exemptRoles", "none", Immutable.listOf(),
            "role names separated by commas", SettingText::list, "roles whose requests are never limited");
    public static final Setting<Boolean> ENFORCE = bool("enforce", true,
            "false = dry run: count, send headers and log, never block");
    public static final Setting<FailurePolicy> ON_REDIS_FAILURE = setting("onRedisFailure", "allow",
            FailurePolicy.ALLOW, "allow, deny or local", FailurePolicy::fromConfigName,
            "allow (admit), deny (503 with Retry-After) or local (each node limits alone at localLimit) when Redis "
            + "cannot be asked");
    public static final Setting<Long> LOCAL_LIMIT = wholeNumber("localLimit", "limit", null, Long.MIN_VALUE,
            Long.MAX_VALUE, "a whole number of at least 1", "with onRedisFailure=local: requests per window each node "
            + "admits alone while Redis cannot be asked");
    public static final Setting<Long> STATUS_CODE = wholeNumber("statusCode", "429", 429L, 400, 599,
            "an HTTP error status between 400 and 599, such as 429", "status of a denial");
    public static final Setting<String> DENIAL_BODY = setting("denialBody", "", null,
            "a path in the webapp starting with '/', such as /WEB-INF/ratelimit/denied.html", DenialBody::resourcePath,
            "a webapp resource used as the body of a denial, with {policy}, {limit}, {window}, {retryAfter}, {status}");
    public static final Setting<String> DENIAL_CONTENT_TYPE = setting("denialContentType", "from the extension",
            null, "a media type such as text/html", DenialBody::mediaType,
            "with denialBody: its media type; by default from .html, .htm, .json, .xml or .txt");
    public static final Setting<StatusMatcher> COUNT_STATUS = setting("countStatus", "all", null,
            "HTTP statuses or classes such as 401,403 or 4xx", StatusMatcher::parse,
            "only answers with these statuses count: the permits of any other answer are given back");
    public static final Setting<Boolean> CHARGE_AFTER = bool("chargeAfter", false, "the handler reports the request's "
            + "real cost (dev.ratelimit.usage): the difference from what was taken is charged after the response");
    public static final Setting<HeaderMode> HEADERS = setting("headers", "draft", HeaderMode.DRAFT,
            "draft, legacy, both or none", HeaderMode::fromConfigName, "which rate-limit headers answers carry");
    public static final Setting<Transport> TRANSPORT = setting("transport", "lua", Transport.LUA,
            "lua or transaction", Transport::fromConfigName, "lua (EVALSHA) or transaction (MULTI/EXEC)");
    public static final Setting<Boolean> LOCAL_DENY_CACHE = bool("localDenyCache", true,
            "remember denials in the JVM until their retry-after");
    public static final Setting<Boolean> LEASES = bool("leases", false,
            "lend a client far from its limit permits ahead of use, admitted on this node without a round trip");
    public static final Setting<Boolean> JMX = bool("jmx", true, "publish the policy's counters as a JMX bean");
    public static final Setting<String> METRICS = setting("metrics", "none", "none", "none or micrometer",
            MetricsBinding::kind, "none, or micrometer: the policy's counters, Redis latency and breaker state in "
            + "Micrometer's global registry (needs ratelimit-micrometer)");
    public static final Setting<String> TRACING = setting("tracing", "none", "none", "none or opentelemetry",
            TracingBinding::kind, "none, or opentelemetry: each decision on the request's current span (needs "
            + "ratelimit-opentelemetry)");
    public static final Setting<Boolean> TRACING_SPAN = setting("tracingSpan", "current", false, "current or own",
            TracingBinding::ownSpan, "with tracing: current writes on the request's span; own starts a span per "
            + "decision, a child of the current one (for webapps with no server span)");
    public static final Setting<Integer> ADAPTIVE = setting("adaptive", "off", 0,
            "off or the lowest limit as a percentage of the configured one, such as 25%", SettingText::percentOrOff,
            "off, or the floor as a percentage of limit: limits follow CPU load");
    public static final Setting<Duration> ADAPTIVE_LATENCY = setting("adaptiveLatency", "", null, DURATION,
            SettingText::duration, "with adaptive: also lower the limit while admitted requests are slower at p90");

    /** The prefix of webapp-wide defaults: context-params and JAX-RS properties {@code ratelimit.<name>}. */
    public static final String PREFIX = "ratelimit.";

    private static final Map<String, Setting<?>> BY_NAME = ALL.stream().collect(Collectors.toMap(Setting::name,
            setting -> setting, (a, b) -> {
                throw new AssertionError("setting " + a + " is declared twice");
            }, LinkedHashMap::new));

    private Settings() {
    }

    /** The setting of that name, or null. */
    public static Setting<?> named(String name) {
        return BY_NAME.get(name);
    }

    /** Every name, in the documented order, joined with ", ": for "unknown name" messages. */
    static String names() {
        return String.join(", ", BY_NAME.keySet());
    }

    /**
     * Collects named values (init-params, context-params, JAX-RS properties) as settings: those
     * whose name starts with the prefix, with the prefix taken off. Other names are left alone:
     * they belong to the container or other libraries.
     *
     * @param names every name there is
     * @param value a name's value; null values are skipped
     * @param prefix {@value #PREFIX} for webapp-wide values, empty for a policy's own
     */
    public static Map<String, String> collect(Iterable<String> names, Function<String, ?> value, String prefix) {
        Map<String, String> words = new LinkedHashMap<>();
        for (String name : names) {
            Object text = name.startsWith(prefix) ? value.apply(name) : null;
            if (text != null) {
                words.put(name.substring(prefix.length()), text.toString());
            }
        }
        return words;
    }

    /** Adds the setting to {@link #ALL}: the order of the declarations is the documented order. */
    private static <T> Setting<T> declare(Setting<T> setting) {
        DECLARED.add(setting);
        return setting;
    }

    /** Declares a setting: see {@link Setting#of}. */
    private static <T> Setting<T> setting(String name, String documentedDefault, T defaultValue, String expected,
            Function<String, T> parser, String doc) {
        return declare(Setting.of(name, documentedDefault, defaultValue, expected, parser, doc));
    }

    private static Setting<Long> wholeNumber(String name, String documentedDefault, Long defaultValue, long min,
            long max, String expected, String doc) {
        return setting(name, documentedDefault, defaultValue, expected, text -> {
            long number = Long.parseLong(text);
            if (number < min || number > max) {
                throw new IllegalArgumentException("out of range");
            }
            return number;
        }, doc);
    }

    private static Setting<Boolean> bool(String name, boolean defaultValue, String doc) {
        return setting(name, Boolean.toString(defaultValue), defaultValue, "true or false", text -> {
            if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text)) {
                return Boolean.parseBoolean(text);
            }
            throw new IllegalArgumentException("not a boolean");
        }, doc);
    }
}
