package dev.ratelimit.internal.http.settings;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.AddressBlocks;
import dev.ratelimit.internal.http.client.KeySpec;
import dev.ratelimit.internal.http.client.Tiers;
import dev.ratelimit.internal.http.client.TrustedProxies;
import java.util.List;

/**
 * Which requests an {@link HttpPolicy} limits, and as which client: its {@code methods} and
 * {@code excludePaths}, its exemptions, the client key (through the trusted proxies; with
 * {@code limits}, each entry's) and the client's tier. Immutable.
 */
public final class PolicyRequests {
    /** The client key of requests that have no value for their key (a shared bucket). */
    public static final String MISSING_KEY = "#missing";

    private final TrustedProxies trustedProxies;
    /** With {@code limits}: the entries' rules and keys; otherwise null. */
    private final Dimensions dimensions;
    private final KeyResolver keyResolver;
    private final RequestMatcher matcher;
    private final Tiers tiers;
    private final AddressBlocks exemptAddresses;
    private final List<String> exemptRoles;

    PolicyRequests(TrustedProxies trustedProxies, Dimensions dimensions, KeyResolver keyResolver,
            RequestMatcher matcher, Tiers tiers, AddressBlocks exemptAddresses, List<String> exemptRoles) {
        this.trustedProxies = trustedProxies;
        this.dimensions = dimensions;
        this.keyResolver = keyResolver;
        this.matcher = matcher;
        this.tiers = tiers;
        this.exemptAddresses = exemptAddresses;
        this.exemptRoles = exemptRoles;
    }

    /** Whether a request with this method and path (without the context path) is limited at all. */
    public boolean appliesTo(String method, String path) {
        return matcher.matches(method, path);
    }

    /**
     * Whether the request is exempt: its client address (resolved as for the {@code ip} key, through
     * the trusted proxies) is in {@code exemptAddresses}, or its user has one of {@code exemptRoles}.
     */
    public boolean exempt(RequestView request) {
        if (!exemptAddresses.isEmpty() && exemptAddresses.contains(trustedProxies.client(request))) {
            return true;
        }
        for (String role : exemptRoles) {
            if (request.isUserInRole(role)) {
                return true;
            }
        }
        return false;
    }

    /** With {@code limits}: the entries, whose client keys {@link Dimensions#clientKeys} gives; otherwise null. */
    public Dimensions dimensions() {
        return dimensions;
    }

    /** A resolved key, or {@link #MISSING_KEY} when the request has none: the policy's shared bucket. */
    static String keyOrMissing(String key) {
        return key == null || key.isEmpty() ? MISSING_KEY : key;
    }

    /** The request's client key; {@link #MISSING_KEY} when it has none. */
    public String clientKey(RequestView request) {
        return keyOrMissing(keyResolver.resolve(request));
    }

    /**
     * The client key of a client that sends {@code value} (see {@link KeyResolver#keyOfValue}), or
     * null when none of this policy's clients can send it.
     */
    public String clientKeyOfValue(String value) {
        return keyResolver.keyOfValue(value);
    }

    /**
     * Whether the client key may be shown where a secret must not go (a request's trace): only a
     * built-in key of no secret word ({@code ip}, {@code user}, {@code global}; see
     * {@link KeySpec#secret()}); never a {@code keyResolverClass}'s, whose values nobody vouched
     * for, nor {@code limits}' several keys.
     */
    public boolean clientKeyShown() {
        return dimensions == null && keyResolver instanceof KeySpec && !((KeySpec) keyResolver).secret();
    }

    /** How clients are keyed, as configured: {@code ip}, {@code ip+header:X-Api-Key}, a resolver class. */
    public String keyDescription() {
        return String.valueOf(keyResolver);
    }

    /** The request's tier ({@code tiers}, {@code tierFrom}), or null: the policy's own limit. */
    public String tierOf(RequestView request) {
        return tiers.isEmpty() ? null : tiers.of(request);
    }

    /** The tiers, each with its limit; {@link Tiers#NONE} without. */
    Tiers tiers() {
        return tiers;
    }

    /** The proxies whose forwarding header is believed, with that header. */
    public TrustedProxies trustedProxies() {
        return trustedProxies;
    }

    /** Whether the client's address matters: {@code ip} in its key or a {@code limits} entry's, or {@code exemptAddresses} (not known of a {@code keyResolverClass}: false). */
    public boolean readsClientAddress() {
        boolean keyed = dimensions != null ? dimensions.readsAddress()
                : keyResolver instanceof KeySpec && ((KeySpec) keyResolver).readsAddress();
        return keyed || !exemptAddresses.isEmpty();
    }

    /** Its part of the policy's startup line: {@code key ip, trustedProxies none, methods all, ...}. */
    @Override
    public String toString() {
        return "key " + keyResolver + ", trustedProxies " + trustedProxies
                + (trustedProxies.header() == Settings.FORWARDED_HEADER.defaultValue() ? ""
                        : ", forwardedHeader " + trustedProxies.header())
                + (trustedProxies.ipv6Prefix() == TrustedProxies.DEFAULT_IPV6_PREFIX ? ""
                        : ", ipv6Prefix " + trustedProxies.ipv6Prefix())
                + ", " + matcher
                + (tiers.isEmpty() ? "" : ", tiers " + tiers)
                + (exemptAddresses.isEmpty() ? "" : ", exemptAddresses " + exemptAddresses)
                + (exemptRoles.isEmpty() ? "" : ", exemptRoles " + String.join(",", exemptRoles));
    }
}
