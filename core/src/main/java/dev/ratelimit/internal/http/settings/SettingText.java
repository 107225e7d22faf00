package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.Immutable;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the text of {@link Settings} parses where several settings share a kind of value: durations,
 * time zones, lists, percentages. Each parser throws an {@link IllegalArgumentException}, which
 * {@link Setting#parse} turns into a message naming the setting and what it expects.
 */
final class SettingText {
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern PERCENT = Pattern.compile("(\\d{1,3})\\s*%");

    private SettingText() {
    }

    /** {@code 500ms}, {@code 10s}, {@code 1m}, {@code 1h}, {@code 1d}, or ISO-8601 such as {@code PT1M}. */
    static Duration duration(String text) {
        Matcher simple = SIMPLE_DURATION.matcher(text);
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
        if (text.startsWith("P") || text.startsWith("p")) {
            try {
                Duration parsed = Duration.parse(text);
                if (!parsed.isNegative()) {
                    return parsed;
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("not a duration");
    }

    /** A duration that {@code accepted} takes, or with {@code off} that word as null: a cool-down, a penalty. */
    static Function<String, Duration> durationWhere(boolean off, Predicate<Duration> accepted) {
        return text -> {
            Duration value = off && "off".equalsIgnoreCase(text) ? null : duration(text);
            if (value != null && !accepted.test(value)) {
                throw new IllegalArgumentException("out of range");
            }
            return value;
        };
    }

    /** A region such as {@code Europe/Berlin}, or {@code UTC}; fixed offsets such as {@code +01:00} too. */
    static ZoneId timeZone(String text) {
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("not a time zone", e);
        }
    }

    /** Items separated by commas or blanks. */
    static List<String> list(String text) {
        List<String> items = new ArrayList<>(Arrays.asList(text.trim().split("[,\\s]+")));
        items.removeIf(String::isEmpty);
        return Immutable.copyOf(items);
    }

    /** {@code off} (or {@code false}) as 0, else a percentage from 1 to 100. */
    static Integer percentOrOff(String text) {
        if (text.equalsIgnoreCase("off") || text.equalsIgnoreCase("false")) {
            return 0;
        }
        Matcher percent = PERCENT.matcher(text);
        int value = percent.matches() ? Integer.parseInt(percent.group(1)) : -1;
        if (value < 1 || value > 100) {
            throw new IllegalArgumentException("not a percentage");
        }
        return value;
    }
}
