package dev.ratelimit.internal.http.settings;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.KeySpec;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.Immutable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Several dimensions of one policy, decided together ({@code limits=1000 per 1m by global; 100 per
 * 1m by user; 10 per 1s by header:X-Api-Key}): a rule and a client key per entry. An entry's name is
 * its key (its key and window when two entries share a key), which the answers' headers carry.
 * Immutable.
 */
public final class Dimensions {
    private static final Pattern ENTRY = Pattern.compile("(\\d{1,16})\\s+per\\s+(\\S+)\\s+by\\s+(\\S+)",
            Pattern.CASE_INSENSITIVE);

    private final List<Rule> rules;
    private final List<KeySpec> keys;
    private final String text;

    private Dimensions(List<Rule> rules, List<KeySpec> keys, String text) {
        this.rules = rules;
        this.keys = keys;
        this.text = text;
    }

    /**
     * @param limits entries {@code <n> per <window> by <key>} separated by {@code ;}
     * @param algorithm, burst, cost what applies to every entry (burst null: each entry's limit)
     * @throws BadArgument naming {@code limits} and the bad entry, or the rule's own setting
     */
    static Dimensions parse(String limits, Algorithm algorithm, Long burst, long cost, TrustedProxies proxies) {
        String[] entries = limits.trim().split("\\s*;\\s*");
        List<Matcher> parsed = new ArrayList<>();
        Set<String> keyTexts = new HashSet<>();
        Set<String> repeated = new HashSet<>();
        for (String entry : entries) {
            Matcher matcher = ENTRY.matcher(entry);
            if (!matcher.matches()) {
                throw new BadArgument("limits", "limits must be entries such as '100 per 1m by user' separated by ';', "
                        + "but '" + entry + "' in '" + limits + "' is not one");
            }
            parsed.add(matcher);
            if (!keyTexts.add(matcher.group(3))) {
                repeated.add(matcher.group(3));
            }
        }
        List<Rule> rules = new ArrayList<>();
        List<KeySpec> keys = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Matcher entry : parsed) {
            Duration window = window(entry.group(2), entry.group(0), limits);
            String key = entry.group(3);
            String name = repeated.contains(key) ? key + "@" + Durations.format(window) : key;
            if (!names.add(name)) {
                throw new BadArgument("limits", "limits must not repeat an entry, but '" + entry.group(0) + "' in '"
                        + limits + "' is there twice");
            }
            Rule.Builder rule = Rule.builder(algorithm, Long.parseLong(entry.group(1)), window).name(name).cost(cost);
            if (burst != null) {
                rule.burst(burst);
            }
            rules.add(rule.build());
            keys.add(KeySpec.parse(key, proxies));
        }
        return new Dimensions(Immutable.copyOf(rules), Immutable.copyOf(keys), String.join("; ", entries));
    }

    private static Duration window(String text, String entry, String limits) {
        try {
            return SettingText.duration(text);
        } catch (IllegalArgumentException e) {
            throw new BadArgument("limits", "limits must give each entry a window such as 1s, 1m, 1h or 1d, but '"
                    + text + "' in '" + entry + "' (of '" + limits + "') is not one");
        }
    }

    /** The entries' rules, in the listed order. */
    public List<Rule> rules() {
        return rules;
    }

    /** The request's client key in each dimension, in the listed order; {@link PolicyRequests#MISSING_KEY} for none. */
    public List<String> clientKeys(RequestView request) {
        List<String> clientKeys = new ArrayList<>(keys.size());
        for (KeySpec key : keys) {
            clientKeys.add(PolicyRequests.keyOrMissing(key.resolve(request)));
        }
        return clientKeys;
    }

    /**
     * The client key of a client that sends {@code value} in each dimension, in the listed order:
     * null where no client of that dimension can send it, and for {@code global}, which counts all.
     */
    public List<String> clientKeysOfValue(String value) {
        return keys.stream().map(key -> key.keyOfValue(value)).collect(Collectors.toList());
    }

    /** A dimension's key as configured, e.g. {@code header:X-Api-Key}. */
    public String keyText(int dimension) {
        return keys.get(dimension).toString();
    }

    /** Whether an entry's key reads the client's address ({@code by ip}, {@code by ip+user}). */
    public boolean readsAddress() {
        return keys.stream().anyMatch(KeySpec::readsAddress);
    }

    /** Whether a dimension counts every client together ({@code by global}, key {@link KeySpec#GLOBAL}). */
    public boolean countsAll(int dimension) {
        return keys.get(dimension).countsAll();
    }

    @Override
    public String toString() {
        return text;
    }
}
