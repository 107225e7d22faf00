package dev.ratelimit.http.client;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.support.BadArgument;
import dev.ratelimit.support.Immutable;
import dev.ratelimit.support.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The built-in key words, parsed once: {@code ip}, {@code user}, {@code session}, {@code global},
 * {@code header:NAME}, {@code param:NAME} (query string only), {@code cookie:NAME}, joined with
 * {@code +} as in {@code ip+header:X-Api-Key}. A request lacking any part has no key (null).
 *
 * <p>Values of {@code session}, {@code header:}, {@code param:} and {@code cookie:} may be secrets
 * (API keys, session ids, tokens): they are replaced by their digest here, before the key reaches
 * Redis (where {@code SCAN}, {@code MONITOR} and RDB files would show it) or the local deny cache.
 * {@code ip} and {@code user} stay readable, for operators.
 */
public final class KeySpec implements KeyResolver {
    private final String text;
    private final List<Function<RequestView, String>> parts;

    private KeySpec(String text, List<Function<RequestView, String>> parts) {
        this.text = text;
        this.parts = parts;
    }

    /**
     * @param spec e.g. {@code ip+header:X-Api-Key}
     * @param proxies whose forwarding headers {@code ip} believes
     * @throws IllegalArgumentException naming the bad part
     */
    public static KeySpec parse(String spec, TrustedProxies proxies) {
        if (spec == null || spec.trim().isEmpty()) {
            throw bad(spec, "it is empty");
        }
        List<Function<RequestView, String>> parts = new ArrayList<>();
        for (String word : spec.trim().split("\\+", -1)) {
            parts.add(part(word.trim(), spec, proxies));
        }
        return new KeySpec(spec.trim(), Immutable.copyOf(parts));
    }

    private static Function<RequestView, String> part(String word, String spec, TrustedProxies proxies) {
        int colon = word.indexOf(':');
        String kind = (colon < 0 ? word : word.substring(0, colon)).toLowerCase(Locale.ROOT);
        String name = colon < 0 ? null : word.substring(colon + 1).trim();
        if (colon < 0) {
            switch (kind) {
                case "ip":
                    return proxies::clientAddress;
                case "user":
                    return RequestView::userName;
                case "session":
                    return request -> secret(request.sessionId());
                case "global":
                    return request -> "global";
                default:
                    throw bad(spec, "'" + word + "' is not a key word");
            }
        }
        if (name.isEmpty()) {
            throw bad(spec, "'" + word + "' names no " + kind);
        }
        switch (kind) {
            case "header":
                return request -> secret(request.header(name));
            case "param":
                return request -> secret(request.queryParameter(name));
            case "cookie":
                return request -> secret(request.cookie(name));
            default:
                throw bad(spec, "'" + word + "' is not a key word");
        }
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
     * The parts' values joined with {@code +} ({@code %} and {@code +} inside a value escaped, so
     * that two different requests never make the same key), or null if any part is missing.
     */
    @Override
    public String resolve(RequestView request) {
        if (parts.size() == 1) {
            String value = parts.get(0).apply(request);
            return value == null || value.isEmpty() ? null : value;
        }
        StringBuilder key = new StringBuilder();
        for (Function<RequestView, String> part : parts) {
            String value = part.apply(request);
            if (value == null || value.isEmpty()) {
                return null;
            }
            if (key.length() > 0) {
                key.append('+');
            }
            key.append(value.replace("%", "%25").replace("+", "%2B"));
        }
        return key.toString();
    }

    @Override
    public String toString() {
        return text;
    }
}
