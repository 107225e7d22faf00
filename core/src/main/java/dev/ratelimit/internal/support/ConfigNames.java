package dev.ratelimit.internal.support;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Finding an enum constant by the name configuration uses for it, with one message shape for all. */
public final class ConfigNames {
    private ConfigNames() {
    }

    /** Case and blanks around {@code name} ignored; else {@code <word> must be one of a, b, c, but was '<name>'}. */
    public static <E> E find(String word, E[] values, Function<E, String> configName, String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (E value : values) {
                if (configName.apply(value).equals(wanted)) {
                    return value;
                }
            }
        }
        throw new BadArgument(word, word + " must be one of " + list(values, configName) + ", but was '"
                + name + "'");
    }

    /** The configuration names joined with ", ". */
    public static <E> String list(E[] values, Function<E, String> configName) {
        return Arrays.stream(values).map(configName).collect(Collectors.joining(", "));
    }
}
