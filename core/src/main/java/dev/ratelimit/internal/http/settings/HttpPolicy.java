package dev.ratelimit.internal.http.settings;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.List;
import java.util.function.Function;

/**
 * One rate-limit policy for HTTP requests, as the {@link Settings} describe it: its name and rule,
 * how it enforces and answers, and where Redis is; which requests it limits and as which client
 * are its {@link #requests()}, the limiters it runs its {@link #limiters()}. Read and validated in
 * one place, {@link PolicyReader}, so the servlet filter and JAX-RS accept the same settings with
 * the same messages. Immutable.
 */
public final class HttpPolicy {
    private final String policyName;
    /** The rule; with {@code limits}, the first entry's. */
    private final Rule rule;
    private final RedisSettings redis;
    private final PolicyRequests requests;
    private final boolean enforce;
    private final int statusCode;
    /** {@code countStatus}: null when every answer counts. */
    private final StatusMatcher countStatus;
    private final boolean chargeAfter;
    private final HeaderMode headerMode;
    /** {@code denialBody}: null for the problem+json default. */
    private final DenialBody denialBody;
    private final PolicyLimiters limiters;
    private final Waiting waiting;

    /** Reads every setting; each check runs now, not when the first request comes. */
    HttpPolicy(PolicyReader in) {
        SettingGroups groups = new SettingGroups(in);
        this.redis = groups.redisSettings();
        TrustedProxies proxies = in.get(Settings.TRUSTED_PROXIES).withHeader(in.get(Settings.FORWARDED_HEADER))
                .withIpv6Prefix(Math.toIntExact(in.get(Settings.IPV6_PREFIX)));
        Dimensions dimensions = groups.dimensions(proxies);
        List<Rule> rules = dimensions != null ? dimensions.rules() : Immutable.listOf(groups.rule());
        this.rule = rules.get(0);
        this.requests = new PolicyRequests(proxies, dimensions, groups.keyResolver(proxies),
                new RequestMatcher(in.get(Settings.METHODS), in.get(Settings.EXCLUDE_PATHS)), groups.tiers(),
                in.get(Settings.EXEMPT_ADDRESSES), in.get(Settings.EXEMPT_ROLES));
        this.headerMode = in.get(Settings.HEADERS);
        this.enforce = in.get(Settings.ENFORCE);
        this.statusCode = Math.toIntExact(in.get(Settings.STATUS_CODE));
        this.countStatus = groups.countStatus(rule);
        this.denialBody = DenialBody.configured(in);
        this.policyName = RedisKeys.checkKeyPart("policyName", in.policyName(), 1, RateLimiter.MAX_NAME_LENGTH);
        this.limiters = new PolicyLimiters(in, policyName, rules, requests.tiers());
        this.waiting = groups.waiting(dimensions != null, rules, limiters.transport(), limiters.leases());
        this.chargeAfter = groups.chargeAfter(rules, limiters.transport(), limiters.leases());
    }

    /** Starts reading a policy whose own settings are named by a format, e.g. {@code init-param '%s'}. */
    public static PolicyReader parser(String labelFormat) {
        return new PolicyReader(name -> String.format(labelFormat, name));
    }

    /** Starts reading a policy whose settings are named by a function (annotation attributes: other names). */
    public static PolicyReader parser(Function<String, String> labels) {
        return new PolicyReader(labels);
    }

    public PolicyRequests requests() {
        return requests;
    }

    public PolicyLimiters limiters() {
        return limiters;
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

    /** How long a request over the limit may wait for its turn, and how many may wait; null: none. */
    public Waiting waiting() {
        return waiting;
    }

    /** Null when all answers count. */
    public StatusMatcher countStatus() {
        return countStatus;
    }

    /** Whether the handler's usage ({@code dev.ratelimit.http.Usage}) is charged after the response. */
    public boolean chargeAfter() {
        return chargeAfter;
    }

    public int statusCode() {
        return statusCode;
    }

    public DenialBody denialBody() {
        return denialBody;
    }

    public HeaderMode headerMode() {
        return headerMode;
    }

    /**
     * What a rule allows, in an operator's words: "100 per 1m", "1000 per calendar month (UTC)", or
     * for an in-flight limit "3 in flight (lease timeout 2m)", whose window is no rate.
     */
    public static String quotaText(Rule rule) {
        return rule.algorithm() == Algorithm.CONCURRENCY
                ? rule.limit() + " in flight (lease timeout " + Durations.format(rule.window()) + ")"
                : rule.limit() + " per " + windowText(rule);
    }

    /** A rule's window as configured, e.g. {@code 1m}, or its calendar period. */
    public static String windowText(Rule rule) {
        return rule.calendar() != null ? "calendar " + rule.calendar() + " (" + rule.timeZone().getId() + ")"
                : Durations.format(rule.window());
    }

    /** The effective configuration, one line, without secrets: for the startup log and the JMX bean. */
    @Override
    public String toString() {
        return "policy '" + policyName + "': " + (requests.dimensions() != null ? rule.algorithm() + " limits " + requests.dimensions()
                : rule.algorithm() + " " + quotaText(rule))
                + (rule.algorithm().usesBurst() ? ", burst " + rule.burst() : "") + ", cost " + rule.cost()
                + (rule.penalty() == null ? "" : ", penalty " + Durations.format(rule.penalty())) + (waiting == null ? "" : ", " + waiting)
                + ", " + requests
                + (chargeAfter ? ", chargeAfter true" : "") + ", enforce " + enforce + ", statusCode " + statusCode + (denialBody == null ? "" : ", " + denialBody)
                + ", headers " + headerMode + ", " + limiters + ", redis " + redis;
    }
}
