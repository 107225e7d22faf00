package dev.ratelimit.http.settings;

import dev.ratelimit.support.BadArgument;
import dev.ratelimit.support.Immutable;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** Parsers of setting values with rules of their own, kept apart so that {@link Settings} reads as the list. */
final class SettingParsers {
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");

    private SettingParsers() {
    }

    /** A region such as {@code Europe/Berlin}, or {@code UTC}; fixed offsets such as {@code +01:00} too. */
    static ZoneId timeZone(String text) {
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("not a time zone", e);
        }
    }

    static List<String> methods(String text) {
        List<String> methods = new ArrayList<>();
        for (String method : Settings.list(text)) {
            if (!METHOD.matcher(method).matches()) {
                throw new BadArgument("methods", "methods must list HTTP methods such as GET,POST, but '" + method
                        + "' in '" + text + "' is not one");
            }
            String upper = method.toUpperCase(Locale.ROOT);
            if (!methods.contains(upper)) {
                methods.add(upper);
            }
        }
        return Immutable.copyOf(methods);
    }
}
