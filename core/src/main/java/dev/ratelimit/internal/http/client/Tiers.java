package dev.ratelimit.internal.http.client;

import dev.ratelimit.Rule;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.support.BadArgument;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A policy's tiers ({@code tiers=partner:1000, staff:5000}) and where a request's tier comes from
 * ({@code tierFrom=role}, {@code attribute:NAME} or {@code header:NAME}): the first tier, in the
 * listed order, that the request belongs to gives its limit; a request of no tier has the
 * policy's {@code limit}. Immutable.
 */
public final class Tiers {
    /** No tiers: every request has the policy's limit. */
    public static final Tiers NONE = new Tiers(Collections.emptyMap(), null, null);

    private static final Pattern PAIR = Pattern.compile("([A-Za-z0-9_.\\-]{1,32})\\s*:\\s*(\\d{1,16})");
    private static final long MAX_LIMIT = Rule.MAX_LIMIT;

    /** Where the tier name comes from. */
    private enum Source {
        ROLE, ATTRIBUTE, HEADER
    }

    private final Map<String, Long> limits;
    private final Source source;
    private final String sourceName;

    private Tiers(Map<String, Long> limits, Source source, String sourceName) {
        this.limits = limits;
        this.source = source;
        this.sourceName = sourceName;
    }

    /**
     * @param tiers {@code name:limit} pairs separated by commas
     * @param tierFrom {@code role}, {@code attribute:NAME} or {@code header:NAME}
     * @throws BadArgument naming the setting and the bad part
     */
    public static Tiers parse(String tiers, String tierFrom) {
        Map<String, Long> limits = new LinkedHashMap<>();
        for (String entry : tiers.trim().split("\\s*,\\s*")) {
            Matcher pair = PAIR.matcher(entry);
            long limit = pair.matches() ? Long.parseLong(pair.group(2)) : 0;
            if (!pair.matches() || limit < 1 || limit > MAX_LIMIT) {
                throw new BadArgument("tiers", "tiers must list name:limit pairs such as partner:1000, staff:5000 "
                        + "(names of letters, digits, '.', '_' or '-', limits from 1 to " + MAX_LIMIT + "), but '"
                        + entry + "' in '" + tiers + "' is not one");
            }
            if (limits.put(pair.group(1), limit) != null) {
                throw new BadArgument("tiers", "tiers must name each tier once, but '" + pair.group(1) + "' appears "
                        + "twice in '" + tiers + "'");
            }
        }
        String from = tierFrom.trim();
        int colon = from.indexOf(':');
        String kind = (colon < 0 ? from : from.substring(0, colon)).toLowerCase(Locale.ROOT);
        String name = colon < 0 ? "" : from.substring(colon + 1).trim();
        if (kind.equals("role") && colon < 0) {
            return new Tiers(Collections.unmodifiableMap(limits), Source.ROLE, null);
        }
        if ((kind.equals("attribute") || kind.equals("header")) && !name.isEmpty()) {
            return new Tiers(Collections.unmodifiableMap(limits), kind.equals("header") ? Source.HEADER
                    : Source.ATTRIBUTE, name);
        }
        throw new BadArgument("tierFrom", "tierFrom must be role, attribute:NAME or header:NAME, but was '"
                + tierFrom + "'");
    }

    public boolean isEmpty() {
        return limits.isEmpty();
    }

    /** The tiers' names and limits, in the listed order. */
    public Map<String, Long> limits() {
        return limits;
    }

    /** The request's tier: the first listed tier it belongs to, or null for none. */
    public String of(RequestView request) {
        if (source == Source.ROLE) {
            for (String tier : limits.keySet()) {
                if (request.isUserInRole(tier)) {
                    return tier;
                }
            }
            return null;
        }
        Object value = source == Source.HEADER ? request.header(sourceName) : request.attribute(sourceName);
        String tier = value == null ? null : value.toString().trim();
        return tier != null && limits.containsKey(tier) ? tier : null;
    }

    @Override
    public String toString() {
        if (limits.isEmpty()) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        limits.forEach((tier, limit) -> text.append(text.length() == 0 ? "" : ", ").append(tier).append(':')
                .append(limit));
        return text + " from " + (source == Source.ROLE ? "role" : source.name().toLowerCase(Locale.ROOT) + ":"
                + sourceName);
    }
}
