package dev.ratelimit.internal.http.client;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Immutable;
import dev.ratelimit.internal.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The built-in key words, parsed once: {@code ip}, {@code user}, {@code session}, {@code global},
 * {@code header:NAME}, {@code param:NAME} (the query string, then a form body), {@code cookie:NAME},
 * joined with {@code +} as in {@code ip+header:X-Api-Key}.
 *
 * <p>A request that lacks a part of a key of several words is keyed by the parts it has and
 * {@link #ABSENT} in place of the missing one: {@code ip+param:user} without a user is limited per
 * address, never in a bucket every such client shares. Only a request that has none of its key's
 * parts has no key (null), and the policy counts it in its shared bucket.
 *
 * <p>Values of {@code session}, {@code header:}, {@code param:} and {@code cookie:} may be secrets
 * (API keys, session ids, tokens): they are replaced by their digest here, before the key reaches
 * Redis (where {@code SCAN}, {@code MONITOR} and RDB files would show it) or the local deny cache.
 * {@code ip} and {@code user} stay readable, for operators.
 */
public final class KeySpec implements KeyResolver {
    /** The one key every client of {@code key=global} shares. */
    public static final String GLOBAL = "global";

    /**
     * What stands for a part a request lacks, in a key of several words: {@code 203.0.113.7+%none}.
     * No value can give it, since a {@code %} inside a value is always written {@code %25}.
     */
    public static final String ABSENT = "%none";

    private final String text;
    /** One per word: what it reads of a request, and the same for a value an operator gives. */
    private final List<KeyResolver> parts;
    /** Whether a word is {@code ip}: the key is then only as good as the trusted proxies. */
    private final boolean readsAddress;
    /** Whether a word may carry a secret (and is digested): {@code session}, {@code header:}, {@code param:}, {@code cookie:}. */
    private final boolean secret;

    private KeySpec(String text, List<KeyResolver> parts, boolean readsAddress, boolean secret) {
        this.text = text;
        this.parts = parts;
        this.readsAddress = readsAddress;
        this.secret = secret;
    }

    /** Parses e.g. {@code ip+header:X-Api-Key}, whose {@code ip} believes {@code proxies}; a bad part is named. */
    public static KeySpec parse(String spec, TrustedProxies proxies) {
        if (spec == null || spec.trim().isEmpty()) {
            throw bad(spec, "it is empty");
        }
        List<KeyResolver> parts = new ArrayList<>();
        boolean readsAddress = false;
        boolean secret = false;
        for (String word : spec.trim().split("\\+", -1)) {
            String trimmed = word.trim();
            parts.add(part(trimmed, spec, proxies));
            readsAddress |= trimmed.equalsIgnoreCase("ip");
            secret |= !trimmed.equalsIgnoreCase("ip") && !trimmed.equalsIgnoreCase("user")
                    && !trimmed.equalsIgnoreCase(GLOBAL);
        }
        return new KeySpec(spec.trim(), Immutable.copyOf(parts), readsAddress, secret);
    }

    private static KeyResolver part(String word, String spec, TrustedProxies proxies) {
        int colon = word.indexOf(':');
        String kind = (colon < 0 ? word : word.substring(0, colon)).toLowerCase(Locale.ROOT);
        String name = colon < 0 ? null : word.substring(colon + 1).trim();
        if (colon < 0) {
            switch (kind) {
                case "ip":
                    return resolver(proxies::clientAddress, value -> {
                        byte[] address = TrustedProxies.literal(value);
                        return address == null ? null : IpLiteral.key(address, proxies.ipv6Prefix());
                    }, word);
                case "user":
                    return resolver(RequestView::userName, KeySpec::nonEmpty, word);
                case "session":
                    return resolver(request -> secret(request.sessionId()), KeySpec::secret, word);
                case "global":
                    // One bucket for all: no value names a client of it, so no operator resets it as one.
                    return resolver(request -> GLOBAL, value -> null, word);
                default:
                    throw bad(spec, "'" + word + "' is not a key word");
            }
        }
        if (name.isEmpty()) {
            throw bad(spec, "'" + word + "' names no " + kind);
        }
        switch (kind) {
            case "header":
                return resolver(request -> secret(request.header(name)), KeySpec::secret, word);
            case "param":
                return resolver(request -> secret(parameter(request, name)), KeySpec::secret, word);
            case "cookie":
                return resolver(request -> secret(request.cookie(name)), KeySpec::secret, word);
            default:
                throw bad(spec, "'" + word + "' is not a key word");
        }
    }

    /** A resolver of what {@code read} reads of a request and {@code value} makes of a value an operator gives. */
    static KeyResolver resolver(Function<RequestView, String> read, UnaryOperator<String> value, String text) {
        return new KeyResolver() {
            @Override
            public String resolve(RequestView request) {
                return read.apply(request);
            }

            @Override
            public String keyOfValue(String given) {
                return value.apply(given);
            }

            @Override
            public String toString() {
                return text;
            }
        };
    }

    /** A query-string parameter, else the same field of a form body (a browser's login form posts it there). */
    private static String parameter(RequestView request, String name) {
        String value = request.queryParameter(name);
        return value != null ? value : request.formParameter(name);
    }

    private static String nonEmpty(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /** A value that may be a secret, as its digest: bounded, and unreadable in Redis. */
    private static String secret(String value) {
        return value == null || value.isEmpty() ? null : RedisKeys.digest(value);
    }

    private static IllegalArgumentException bad(String spec, String why) {
        return new BadArgument("key", "key must be ip, user, session, global, header:NAME, param:NAME or "
                + "cookie:NAME, joined with '+', but was '" + spec + "' (" + why + ")");
    }

    /**
     * The parts' values joined with {@code +} ({@code %} and {@code +} inside a value escaped, so that two different
     * requests never make the same key), {@link #ABSENT} for a part the request lacks; null when it lacks every part.
     */
    @Override
    public String resolve(RequestView request) {
        if (parts.size() == 1) {
            // Every request comes here: the one-word key allocates nothing.
            return nonEmpty(parts.get(0).resolve(request));
        }
        List<String> values = new ArrayList<>(parts.size());
        for (KeyResolver part : parts) {
            values.add(part.resolve(request));
        }
        return join(values);
    }

    /**
     * {@inheritDoc} A key of several words takes one value per word, joined with {@code +} in the
     * words' order, {@code %} and {@code +} inside a value written {@code %25} and {@code %2B}:
     * {@code 203.0.113.7+my%2Bkey} for {@code ip+header:X-Api-Key}. An empty value stands for a part
     * the client does not send: {@code 203.0.113.7+} is the address's requests without an API key.
     */
    @Override
    public String keyOfValue(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (parts.size() == 1) {
            return parts.get(0).keyOfValue(value);
        }
        String[] given = value.split("\\+", -1);
        if (given.length != parts.size()) {
            return null;
        }
        List<String> values = new ArrayList<>(parts.size());
        for (int i = 0; i < given.length; i++) {
            if (given[i].isEmpty()) {
                values.add(null);
                continue;
            }
            String part = parts.get(i).keyOfValue(given[i].replace("%2B", "+").replace("%2b", "+").replace("%25", "%"));
            if (part == null) {
                // A value this word can never read (no address for ip): no client sends it.
                return null;
            }
            values.add(part);
        }
        return join(values);
    }

    /** Several words' values as one key, {@link #ABSENT} for each one missing; null if all are. */
    private static String join(List<String> values) {
        StringBuilder key = new StringBuilder();
        boolean any = false;
        for (String value : values) {
            if (key.length() > 0) {
                key.append('+');
            }
            if (value == null || value.isEmpty()) {
                key.append(ABSENT);
            } else {
                any = true;
                key.append(value.replace("%", "%25").replace("+", "%2B"));
            }
        }
        return any ? key.toString() : null;
    }

    public boolean readsAddress() {
        return readsAddress;
    }

    /** Then the key is shown nowhere a secret must not go, not even as its digest (a request's trace). */
    public boolean secret() {
        return secret;
    }

    /** Whether every client counts as one: the key is {@code global} alone, whose key is {@link #GLOBAL}. */
    public boolean countsAll() {
        return text.equalsIgnoreCase(GLOBAL);
    }

    @Override
    public String toString() {
        return text;
    }
}
