package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.BadArgument;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration setting, declared once in {@link Settings}: its name (the init-param, the
 * {@code ratelimit.<name>} context-param and JAX-RS property), its documented default, how its
 * text parses, and one line of documentation. Everything else (unknown-name rejection, the
 * layered lookup, placeholders, messages, the README table test) reads these declarations.
 *
 * @param <T> the parsed value's type
 */
public final class Setting<T> {
    private final String name;
    private final String documentedDefault;
    private final T defaultValue;
    private final String expected;
    private final Function<String, T> parser;
    private final String doc;
    private final boolean secret;

    private Setting(String name, String documentedDefault, T defaultValue, String expected,
            Function<String, T> parser, String doc, boolean secret) {
        this.name = name;
        this.documentedDefault = documentedDefault;
        this.defaultValue = defaultValue;
        this.expected = expected;
        this.parser = parser;
        this.doc = doc;
        this.secret = secret;
    }

    /**
     * Declares a setting.
     *
     * @param documentedDefault the default as README's table shows it (empty when there is none)
     * @param defaultValue what an unset setting is, or null when it has no value unless given
     * @param expected what a good value looks like, for messages, e.g. {@code a whole number of at least 1}
     * @param parser turns trimmed, non-empty text into the value; throws {@link BadArgument} (or
     *     any {@link IllegalArgumentException}) when the text is bad
     */
    static <T> Setting<T> of(String name, String documentedDefault, T defaultValue, String expected,
            Function<String, T> parser, String doc) {
        return new Setting<>(name, documentedDefault, defaultValue, expected, parser, doc, false);
    }

    /** The same setting, whose value may hold a secret (a password): never logged as it is. */
    Setting<T> secret() {
        return new Setting<>(name, documentedDefault, defaultValue, expected, parser, doc, true);
    }

    /** The name users write, e.g. {@code window}. */
    public String name() {
        return name;
    }

    /** The default as the documentation states it, e.g. {@code 200ms} or {@code the filter-name}; empty if none. */
    public String documentedDefault() {
        return documentedDefault;
    }

    /** The value when the setting is not given; null when it has none (then it is optional or required). */
    public T defaultValue() {
        return defaultValue;
    }

    /** What a good value looks like, e.g. {@code a whole number of at least 1, such as 100}. */
    public String expected() {
        return expected;
    }

    /** One line saying what the setting does. */
    public String doc() {
        return doc;
    }

    /** Whether the value may hold a secret. */
    public boolean isSecret() {
        return secret;
    }

    /**
     * Parses a value that is set (placeholders resolved, trimmed, not empty).
     *
     * @throws BadArgument naming this setting and showing the value
     */
    public T parse(String text) {
        Objects.requireNonNull(text, "text");
        try {
            return parser.apply(text);
        } catch (BadArgument e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new BadArgument(name, name + " must be " + expected + ", but was '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
